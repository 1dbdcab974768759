package dev.ratelimit;

import java.time.Duration;

/**
 * The generic cell rate algorithm: {@code rate} requests per {@code period}, with bursts of up to
 * {@code burst}, kept as one timestamp per key (the theoretical arrival time of the next request).
 *
 * <p>Its decisions are those of a {@link TokenBucket} with capacity {@code burst} refilled at
 * {@code rate} per {@code period} (while the clock does not go back: then GCRA, keeping no time of
 * its last update, is the stricter of the two until the clock catches up); pick it when state size
 * matters (one value per key in Redis).
 * The emission interval {@code period / rate} is kept as an exact fraction, so the timestamp is a
 * whole microsecond plus a remainder in units of 1/{@link #ratePerUnit()} µs; nothing drifts.
 *
 * @param rate   requests per {@code period}, {@code > 0}; {@link #ratePerUnit()} below 2^53
 * @param period the period of {@code rate}, positive, whole microseconds
 * @param burst  the most requests that can pass back to back, {@code > 0}; {@code burst * intervalUnits}
 *               below 2^53, and the time to recover a full burst at most 2^52 µs (about 142 years)
 */
public record Gcra(long rate, Duration period, long burst) implements Policy {

    /**
     * Validates every field; see the class documentation.
     *
     * @param rate   requests per {@code period}
     * @param period the period of {@code rate}
     * @param burst  the most requests that can pass back to back
     * @throws InvalidConfigurationException when a field is out of range, naming it
     */
    public Gcra {
        Exact.requirePositive("rate", rate);
        long periodMicros = Durations.positiveMicros("period", period);
        Exact.requirePositive("burst", burst);
        long interval = periodMicros / Exact.gcd(rate, periodMicros);
        Exact.requireExact("rate", rate / Exact.gcd(rate, periodMicros),
                "rate " + rate + " per period " + period + "; admit fewer requests per microsecond");
        Exact.requireExact("burst", Exact.productOrOverflow(burst, interval),
                "burst " + burst + " x period " + period + " / rate " + rate + "; lower the burst or shorten the period");
        // The theoretical arrival time runs up to this far ahead of the clock, and is stored.
        Exact.requireRefillTime("burst", Exact.ceilDiv(burst * interval, rate / Exact.gcd(rate, periodMicros)),
                "lower the burst or raise the rate");
    }

    /**
     * The emission interval's numerator.
     *
     * @return period µs / gcd(rate, period µs)
     */
    public long intervalUnits() {
        long periodMicros = Durations.toMicros(period);
        return periodMicros / Exact.gcd(rate, periodMicros);
    }

    /**
     * The emission interval's denominator.
     *
     * @return rate / gcd(rate, period µs)
     */
    public long ratePerUnit() {
        long periodMicros = Durations.toMicros(period);
        return rate / Exact.gcd(rate, periodMicros);
    }

    @Override
    public long limit() {
        return burst;
    }

    /** The time to recover a full burst from empty, rounded up to a microsecond. */
    @Override
    public Duration window() {
        return Durations.ofMicros(Exact.ceilDiv(burst * intervalUnits(), ratePerUnit()));
    }

    @Override
    public String algorithm() {
        return "gcra";
    }
}
