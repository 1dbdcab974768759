package dev.ratelimit;

import java.time.Duration;

/**
 * A bucket of {@code capacity} tokens that refills continuously at {@code refillTokens} per
 * {@code refillPeriod}; a request of cost {@code k} passes when {@code k} tokens are in the bucket and
 * takes them. A fresh or idle client starts with a full bucket.
 *
 * <p>Pick it for bursty endpoints: a client may spend the whole capacity at once, then gets the
 * refill rate. In any interval of length {@code T} it admits at most
 * {@code capacity + refillTokens * T / refillPeriod}. State per key: two numbers (missing tokens,
 * last update).
 *
 * <p>Arithmetic is exact: the rate is kept as the reduced fraction
 * {@link #refillUnitsPerMicro()} / {@link #unitsPerToken()} so that, for example, 3 tokens per second
 * never drifts.
 *
 * @param capacity     the most tokens the bucket holds, {@code > 0}; {@code capacity * unitsPerToken} below
 *                     2^53, and the time to refill from empty at most 2^52 µs (about 142 years)
 * @param refillTokens tokens added per {@code refillPeriod}, {@code > 0}; {@link #refillUnitsPerMicro()} below 2^53
 * @param refillPeriod the period of {@code refillTokens}, positive, whole microseconds
 */
public record TokenBucket(long capacity, long refillTokens, Duration refillPeriod) implements Policy {

    /**
     * Validates every field; see the class documentation.
     *
     * @param capacity     the most tokens the bucket holds
     * @param refillTokens tokens added per {@code refillPeriod}
     * @param refillPeriod the period of {@code refillTokens}
     * @throws InvalidConfigurationException when a field is out of range, naming it
     */
    public TokenBucket {
        Exact.requirePositive("capacity", capacity);
        Exact.requirePositive("refillTokens", refillTokens);
        long periodMicros = Durations.positiveMicros("refillPeriod", refillPeriod);
        long unitsPerToken = periodMicros / Exact.gcd(refillTokens, periodMicros);
        Exact.requireExact("refillTokens", refillTokens / Exact.gcd(refillTokens, periodMicros),
                "refillTokens " + refillTokens + " per refillPeriod " + refillPeriod + "; refill fewer tokens per microsecond");
        Exact.requireExact("capacity", Exact.productOrOverflow(capacity, unitsPerToken),
                "capacity " + capacity + " x refillPeriod " + refillPeriod + " / refillTokens " + refillTokens
                        + "; lower the capacity or use a shorter refill period");
        Exact.requireRefillTime("capacity", Exact.ceilDiv(capacity * unitsPerToken, refillTokens / Exact.gcd(refillTokens, periodMicros)),
                "lower the capacity or refill faster");
    }

    /**
     * {@code capacity} tokens refilled at {@code tokensPerSecond} per second.
     *
     * @param capacity        the most tokens the bucket holds
     * @param tokensPerSecond tokens added per second
     * @return the policy
     * @throws InvalidConfigurationException as {@link #TokenBucket}
     */
    public static TokenBucket perSecond(long capacity, long tokensPerSecond) {
        return new TokenBucket(capacity, tokensPerSecond, Duration.ofSeconds(1));
    }

    /**
     * One token in exact units.
     *
     * @return the refill period in µs divided by gcd(refillTokens, period µs)
     */
    public long unitsPerToken() {
        long periodMicros = Durations.toMicros(refillPeriod);
        return periodMicros / Exact.gcd(refillTokens, periodMicros);
    }

    /**
     * Exact units refilled per microsecond.
     *
     * @return refillTokens divided by gcd(refillTokens, period µs)
     */
    public long refillUnitsPerMicro() {
        long periodMicros = Durations.toMicros(refillPeriod);
        return refillTokens / Exact.gcd(refillTokens, periodMicros);
    }

    @Override
    public long limit() {
        return capacity;
    }

    /** The time to refill from empty to full, rounded up to a microsecond. */
    @Override
    public Duration window() {
        return Durations.ofMicros(Exact.ceilDiv(capacity * unitsPerToken(), refillUnitsPerMicro()));
    }

    @Override
    public String algorithm() {
        return "token_bucket";
    }
}
