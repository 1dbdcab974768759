package dev.ratelimit;

/**
 * The one source of time for every limiter: the current instant in microseconds since the Unix
 * epoch.
 *
 * <p>Nothing else in this library reads the system clock. Tests pass a {@link ManualClock}; the
 * Redis store uses the Redis server's {@code TIME} so that instances with skewed clocks agree.
 * Implementations must be thread-safe and should never go backwards; the algorithms tolerate a
 * clock that does (it never admits more than a clock that stood still; GCRA, the sliding window
 * counter and the sliding log are stricter until it catches up) but cannot refund what was already
 * spent. One exception, on Redis: a refused token bucket writes nothing there, so when Redis' clock
 * steps back after a refusal the bucket refills again over the time it went back.
 */
@FunctionalInterface
public interface Clock {

    /**
     * Microseconds since 1970-01-01T00:00:00Z, never negative: a fresh client's state is all zeros,
     * which the algorithms would read as state last touched at 1970 itself, so readings before 1970
     * are not supported ({@link ManualClock} refuses them).
     *
     * @return the current instant, µs since the epoch
     */
    long nowMicros();

    /**
     * The monotonic system clock: {@code System.nanoTime()} anchored to the wall clock once per JVM, so
     * it never jumps when the wall clock is adjusted. Every call returns the same clock, so a filter
     * and a store that each take {@code Clock.system()} read the same time: two clocks anchored
     * separately would differ by the microseconds between their anchors, enough to push an
     * epoch-aligned reset into the next second.
     *
     * @return the system clock
     */
    static Clock system() {
        return SystemClock.INSTANCE;
    }
}
