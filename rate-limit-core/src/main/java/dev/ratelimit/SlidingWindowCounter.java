package dev.ratelimit;

import java.time.Duration;

/**
 * About {@code limit} requests per sliding window, from two counters: the current epoch-aligned
 * window and the previous one. A request at offset {@code e} into the current window passes when
 * {@code previous * (window - e) / window + current + cost <= limit} (computed exactly, in integers),
 * i.e. assuming the previous window's requests were spread evenly.
 *
 * <p>Error bound: inside any epoch-aligned window it never admits more than {@code limit}; over an
 * arbitrary window of length {@code window} it admits at most {@code limit + previous * e / window},
 * which stays below {@code 2 * limit} and reaches it only when the previous window's requests all
 * came at its very end. For traffic spread over the window it is within a few percent of exact.
 * State per key: three numbers, whatever the limit.
 *
 * @param limit  requests per window, {@code > 0}
 * @param window the window length, positive, whole microseconds
 */
public record SlidingWindowCounter(long limit, Duration window) implements Policy {

    /**
     * Validates every field; see the class documentation.
     *
     * @param limit  requests per window
     * @param window the window length
     * @throws InvalidConfigurationException when a field is out of range, naming it
     */
    public SlidingWindowCounter {
        Exact.requirePositive("limit", limit);
        long windowMicros = Durations.positiveMicros("window", window);
        Exact.requireExact("limit", Exact.productOrOverflow(limit, windowMicros),
                "limit " + limit + " x window " + window + " in µs; lower the limit or shorten the window");
    }

    @Override
    public String algorithm() {
        return "sliding_window_counter";
    }
}
