package dev.ratelimit;

import java.time.Duration;

/**
 * At most {@code limit} requests per window, the windows aligned to the Unix epoch (so every
 * instance agrees where a window starts). The counter resets at each window boundary.
 *
 * <p>Pick it for simple, strict quotas that users read as "N per minute" (a login endpoint). Burst
 * behaviour: up to {@code 2 * limit} can pass across a boundary (the end of one window and the start
 * of the next). State per key: the window start and a count.
 *
 * @param limit  requests per window, {@code > 0}
 * @param window the window length, positive, whole microseconds
 */
public record FixedWindow(long limit, Duration window) implements Policy {

    /**
     * Validates every field; see the class documentation.
     *
     * @param limit  requests per window
     * @param window the window length
     * @throws InvalidConfigurationException when a field is out of range, naming it
     */
    public FixedWindow {
        Exact.requirePositive("limit", limit);
        Durations.positiveMicros("window", window);
        Exact.requireExact("limit", limit, "lower the limit");
    }

    @Override
    public String algorithm() {
        return "fixed_window";
    }
}
