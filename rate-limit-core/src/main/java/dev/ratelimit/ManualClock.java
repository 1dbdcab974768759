package dev.ratelimit;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock that only moves when told to: for tests, yours and ours.
 *
 * <pre>{@code
 * ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
 * RateLimitStore store = MemoryStore.builder().clock(clock).build();
 * ...
 * clock.advance(Duration.ofSeconds(1));
 * }</pre>
 */
public final class ManualClock implements Clock {
    private static final String BEFORE_1970 =
            "a clock reading before 1970 is not supported (the algorithms read all-zero state as a fresh client's), was ";
    private final AtomicLong micros;

    /**
     * Starts at {@code start}, rounded down to whole microseconds.
     *
     * @param start the first reading
     * @throws IllegalArgumentException if {@code start} is before 1970 (see {@link Clock#nowMicros()})
     * @throws ArithmeticException if {@code start} is beyond a long of microseconds (about 292,000 years from 1970)
     */
    public ManualClock(Instant start) {
        this(epochMicros(start));
    }

    private static long epochMicros(Instant start) {
        if (start.isBefore(Instant.EPOCH)) {
            throw new IllegalArgumentException(BEFORE_1970 + start);
        }
        return Durations.toMicros(Duration.ofSeconds(start.getEpochSecond(), start.getNano()));
    }

    /**
     * Starts at {@code startMicros} microseconds since the epoch.
     *
     * @param startMicros the first reading, µs since the epoch
     * @throws IllegalArgumentException if {@code startMicros} is negative (before 1970)
     */
    public ManualClock(long startMicros) {
        this.micros = new AtomicLong(notBefore1970(startMicros));
    }

    private static long notBefore1970(long micros) {
        if (micros < 0) {
            throw new IllegalArgumentException(BEFORE_1970 + micros + " µs");
        }
        return micros;
    }

    @Override
    public long nowMicros() {
        return micros.get();
    }

    /**
     * Moves the clock forward (or back, for a negative duration) by {@code by}, rounded down to whole
     * microseconds.
     *
     * @param by how far to move
     * @return this clock
     * @throws ArithmeticException if the time would overflow a long of microseconds (the clock then stays put)
     * @throws IllegalArgumentException if the time would be before 1970 (the clock then stays put)
     */
    public ManualClock advance(Duration by) {
        return advanceMicros(Durations.toMicros(by));
    }

    /**
     * Moves the clock by {@code deltaMicros} microseconds.
     *
     * @param deltaMicros how far to move, in µs; negative moves it back
     * @return this clock
     * @throws ArithmeticException if the time would overflow a long (the clock then stays put)
     * @throws IllegalArgumentException if the time would be before 1970 (the clock then stays put)
     */
    public ManualClock advanceMicros(long deltaMicros) {
        micros.accumulateAndGet(deltaMicros, (now, delta) -> notBefore1970(Math.addExact(now, delta)));
        return this;
    }

    /**
     * Sets the clock to {@code epochMicros}.
     *
     * @param epochMicros the new reading, µs since the epoch
     * @throws IllegalArgumentException if {@code epochMicros} is negative (before 1970)
     */
    public void setMicros(long epochMicros) {
        micros.set(notBefore1970(epochMicros));
    }

    @Override
    public String toString() {
        return "ManualClock[" + micros.get() + "µs]";
    }
}
