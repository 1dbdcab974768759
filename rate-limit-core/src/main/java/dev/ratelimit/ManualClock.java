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
    private final AtomicLong micros;

    /**
     * Starts at {@code start}, rounded down to whole microseconds.
     *
     * @throws ArithmeticException if {@code start} is beyond a long of microseconds (about 292,000 years from 1970)
     */
    public ManualClock(Instant start) {
        this(Math.addExact(Math.multiplyExact(start.getEpochSecond(), 1_000_000L), start.getNano() / 1_000L));
    }

    /** Starts at {@code startMicros} microseconds since the epoch. */
    public ManualClock(long startMicros) {
        this.micros = new AtomicLong(startMicros);
    }

    @Override
    public long nowMicros() {
        return micros.get();
    }

    /**
     * Moves the clock forward (or back, for a negative duration) by {@code by}, rounded down to whole
     * microseconds.
     *
     * @throws ArithmeticException if the time would overflow a long of microseconds (the clock then stays put)
     */
    public ManualClock advance(Duration by) {
        return advanceMicros(Durations.toMicros(by));
    }

    /**
     * Moves the clock by {@code deltaMicros} microseconds.
     *
     * @throws ArithmeticException if the time would overflow a long (the clock then stays put)
     */
    public ManualClock advanceMicros(long deltaMicros) {
        micros.accumulateAndGet(deltaMicros, Math::addExact);
        return this;
    }

    /** Sets the clock to {@code epochMicros}. */
    public void setMicros(long epochMicros) {
        micros.set(epochMicros);
    }

    @Override
    public String toString() {
        return "ManualClock[" + micros.get() + "µs]";
    }
}
