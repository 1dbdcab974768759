package dev.ratelimit;

/**
 * Integer helpers shared by the policies and the algorithms. Every quantity an algorithm stores or
 * compares stays below {@link #MAX} (2^53), so the same arithmetic is exact in Java longs and in
 * the Lua numbers (IEEE doubles) that the Redis scripts use.
 *
 * <p>Internal: public only for this library's other packages, not part of its API; it may change
 * in any release.
 */
public final class Exact {
    /** 2^53: the bound below which doubles represent every integer exactly. */
    public static final long MAX = 1L << 53;

    /**
     * 2^52 µs, about 142 years: the longest a bucket may take to refill from empty. A state's
     * timestamps run at most that far ahead of the clock (GCRA stores one), so they stay below
     * {@link #MAX} until 2112.
     */
    public static final long MAX_REFILL_MICROS = 1L << 52;

    private Exact() {
    }

    /**
     * Greatest common divisor of two positive numbers.
     *
     * @param a a positive number
     * @param b a positive number
     * @return their greatest common divisor
     */
    public static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a;
    }

    /**
     * Ceiling of {@code a / b} for {@code a >= 0, b > 0}.
     *
     * @param a the dividend, {@code >= 0}
     * @param b the divisor, {@code > 0}
     * @return {@code a / b} rounded up
     */
    public static long ceilDiv(long a, long b) {
        return -Math.floorDiv(-a, b);
    }

    /** {@code a * b}, or -1 if that exceeds {@link #MAX}; a, b positive. */
    static long productOrOverflow(long a, long b) {
        return a > MAX / b ? -1 : a * b;
    }

    static void requirePositive(String field, long value) {
        if (value <= 0) {
            throw new InvalidConfigurationException(field, "must be > 0, was " + value);
        }
    }

    /** Refuses {@code value} (a positive number, or -1 for a product that overflowed) from 2^53 up. */
    static void requireExact(String what, long value, String hint) {
        if (value < 0 || value >= MAX) {
            throw new InvalidConfigurationException(what, "is too large for exact arithmetic (must stay below 2^53 = "
                    + MAX + ", was " + (value < 0 ? "more" : value) + "); " + hint);
        }
    }

    static void requireRefillTime(String what, long micros, String hint) {
        if (micros > MAX_REFILL_MICROS) {
            throw new InvalidConfigurationException(what, "takes too long to refill from empty (at most 2^52 µs, about 142 years, was "
                    + Durations.ofMicros(micros) + "); " + hint);
        }
    }
}
