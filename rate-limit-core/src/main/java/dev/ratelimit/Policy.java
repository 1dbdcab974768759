package dev.ratelimit;

import java.time.Duration;

/**
 * One rate-limiting rule: an immutable, validated value. A {@link Limit} combines one or more.
 *
 * <p>Five algorithms, each with exact integer semantics in microseconds (no floating point, so a
 * rate of 1000 per day or 3 per second admits exactly what it says after a million calls):
 * <ul>
 *   <li>{@link TokenBucket}: bursts up to a capacity, refilled continuously;</li>
 *   <li>{@link FixedWindow}: a counter per epoch-aligned window;</li>
 *   <li>{@link SlidingWindowLog}: exact, remembers every admitted request in the window;</li>
 *   <li>{@link SlidingWindowCounter}: two counters weighted by overlap, O(1) state;</li>
 *   <li>{@link Gcra}: the token bucket's decisions from a single timestamp of state.</li>
 * </ul>
 * Every constructor rejects bad values with an {@link InvalidConfigurationException} naming the field
 * and the value, e.g. {@code capacity: must be > 0, was 0}.
 */
public sealed interface Policy permits TokenBucket, FixedWindow, SlidingWindowLog, SlidingWindowCounter, Gcra {

    /**
     * The largest number of unit-cost requests that can pass back to back from a fresh state: the
     * bucket capacity, the window limit or the GCRA burst. A request costing more can never pass.
     *
     * @return the limit, {@code > 0}
     */
    long limit();

    /**
     * The time the quota is measured over, as published in {@code RateLimit-Policy}'s {@code w}: the
     * window, or for the bucket algorithms the time to refill from empty.
     *
     * @return the window
     */
    Duration window();

    /**
     * The algorithm's name as used in JSON configuration, e.g. {@code token_bucket}.
     *
     * @return the name
     */
    String algorithm();

    /**
     * A token bucket of {@code capacity} tokens, refilled by {@code refillTokens} every {@code refillPeriod}.
     *
     * @param capacity     the most tokens the bucket holds
     * @param refillTokens tokens added per {@code refillPeriod}
     * @param refillPeriod the period of {@code refillTokens}
     * @return the policy
     * @throws InvalidConfigurationException as {@link TokenBucket#TokenBucket}
     */
    static TokenBucket tokenBucket(long capacity, long refillTokens, Duration refillPeriod) {
        return new TokenBucket(capacity, refillTokens, refillPeriod);
    }

    /**
     * At most {@code limit} requests per epoch-aligned {@code window}.
     *
     * @param limit  requests per window
     * @param window the window length
     * @return the policy
     * @throws InvalidConfigurationException as {@link FixedWindow#FixedWindow}
     */
    static FixedWindow fixedWindow(long limit, Duration window) {
        return new FixedWindow(limit, window);
    }

    /**
     * At most {@code limit} requests in any {@code window}, exactly.
     *
     * @param limit  requests per window, at most {@link SlidingWindowLog#MAX_LIMIT}
     * @param window the window length
     * @return the policy
     * @throws InvalidConfigurationException as {@link SlidingWindowLog#SlidingWindowLog}
     */
    static SlidingWindowLog slidingWindowLog(long limit, Duration window) {
        return new SlidingWindowLog(limit, window);
    }

    /**
     * About {@code limit} requests per sliding {@code window}, from two weighted counters.
     *
     * @param limit  requests per window
     * @param window the window length
     * @return the policy
     * @throws InvalidConfigurationException as {@link SlidingWindowCounter#SlidingWindowCounter}
     */
    static SlidingWindowCounter slidingWindowCounter(long limit, Duration window) {
        return new SlidingWindowCounter(limit, window);
    }

    /**
     * {@code rate} requests per {@code period} with bursts of up to {@code burst}.
     *
     * @param rate   requests per {@code period}
     * @param period the period of {@code rate}
     * @param burst  the most requests that can pass back to back
     * @return the policy
     * @throws InvalidConfigurationException as {@link Gcra#Gcra}
     */
    static Gcra gcra(long rate, Duration period, long burst) {
        return new Gcra(rate, period, burst);
    }
}
