package dev.ratelimit;

import java.time.Duration;

/**
 * Exactly at most {@code limit} requests in any window of length {@code window}: the log remembers
 * when each admitted request (each unit of its cost) happened, and a request of cost {@code c} passes
 * when the remembered units younger than {@code window}, plus {@code c}, are at most {@code limit}.
 *
 * <p>Pick it where the count must be exact over any window (compliance, login). No burst beyond the
 * limit. State per key grows with use, up to {@code limit} timestamps: 8 bytes each in memory; in a
 * Redis sorted set about 37 bytes each up to 128 entries and 120-130 above (measured), so the limit
 * is capped at {@link #MAX_LIMIT}; for larger limits use {@link SlidingWindowCounter}.
 *
 * @param limit  requests per window, {@code 1..MAX_LIMIT}
 * @param window the window length, positive, whole microseconds
 */
public record SlidingWindowLog(long limit, Duration window) implements Policy {
    /** The largest limit accepted: 10,000 entries is about 80 KB per client in memory, 1.3 MB in Redis. */
    public static final long MAX_LIMIT = 10_000;

    /**
     * Validates every field; see the class documentation.
     *
     * @param limit  requests per window
     * @param window the window length
     * @throws InvalidConfigurationException when a field is out of range, naming it
     */
    public SlidingWindowLog {
        Exact.requirePositive("limit", limit);
        if (limit > MAX_LIMIT) {
            throw new InvalidConfigurationException("limit", "must be at most " + MAX_LIMIT
                    + " for a sliding window log (it stores one timestamp per request), was " + limit
                    + "; use sliding_window_counter for large limits");
        }
        Durations.positiveMicros("window", window);
    }

    @Override
    public String algorithm() {
        return "sliding_window_log";
    }
}
