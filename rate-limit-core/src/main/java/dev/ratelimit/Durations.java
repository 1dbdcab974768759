package dev.ratelimit;

import java.time.Duration;

/**
 * Conversions between {@link Duration} and the microseconds every algorithm counts in.
 *
 * <p>Internal: public only for this library's other packages, not part of its API; it may change
 * in any release.
 */
public final class Durations {
    /** The longest window or period a policy accepts: 400 days. */
    public static final Duration MAX = Duration.ofDays(400);

    private Durations() {
    }

    /**
     * {@code d} in microseconds, rounded down to a whole microsecond (toward negative infinity, like
     * {@link Duration#getSeconds()}: {@code -0.5 µs} is {@code -1}).
     *
     * @param d the duration
     * @return {@code d} in whole microseconds
     * @throws ArithmeticException if that does not fit in a long (about 292,000 years)
     */
    public static long toMicros(Duration d) {
        long seconds = d.getSeconds();
        long micros = d.getNano() / 1_000L;
        if (seconds < 0 && micros > 0) {
            // Near Long.MIN_VALUE µs the whole seconds alone overflow though the sum fits: borrow one.
            seconds++;
            micros -= 1_000_000L;
        }
        return Math.addExact(Math.multiplyExact(seconds, 1_000_000L), micros);
    }

    /**
     * {@code micros} microseconds as a Duration.
     *
     * @param micros µs, negative too
     * @return the duration
     */
    public static Duration ofMicros(long micros) {
        return Duration.ofSeconds(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
    }

    /**
     * Validates a policy duration: positive, whole microseconds, at most {@link #MAX}.
     *
     * @return the duration in microseconds
     * @throws InvalidConfigurationException naming {@code field} and the bad value
     */
    static long positiveMicros(String field, Duration d) {
        if (d == null) {
            throw new InvalidConfigurationException(field, "must be set, was null");
        }
        if (d.isNegative() || d.isZero()) {
            throw new InvalidConfigurationException(field, "must be > 0, was " + d);
        }
        if (d.compareTo(MAX) > 0) {
            throw new InvalidConfigurationException(field, "must be at most 400 days (" + MAX + "), was " + d);
        }
        if (d.getNano() % 1_000 != 0) {
            throw new InvalidConfigurationException(field, "must be whole microseconds, was " + d);
        }
        return toMicros(d);
    }
}
