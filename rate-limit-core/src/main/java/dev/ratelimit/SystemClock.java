package dev.ratelimit;

import java.time.Instant;

/**
 * {@link Clock#system()}: wall-clock origin plus monotonic elapsed time. One per JVM, immutable once
 * anchored, like {@code java.time.Clock.systemUTC()}: every reader must share the anchor.
 */
final class SystemClock implements Clock {
    static final SystemClock INSTANCE = new SystemClock();

    private final long originMicros;
    private final long originNanos;

    private SystemClock() {
        Instant wall = Instant.now();
        this.originNanos = System.nanoTime();
        this.originMicros = Math.addExact(Math.multiplyExact(wall.getEpochSecond(), 1_000_000L), wall.getNano() / 1_000L);
    }

    @Override
    public long nowMicros() {
        return originMicros + (System.nanoTime() - originNanos) / 1_000L;
    }

    @Override
    public String toString() {
        return "Clock.system()";
    }
}
