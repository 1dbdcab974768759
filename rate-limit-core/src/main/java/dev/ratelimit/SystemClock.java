package dev.ratelimit;

import java.time.Instant;

/** {@link Clock#system()}: wall-clock origin plus monotonic elapsed time. */
final class SystemClock implements Clock {
    private final long originMicros;
    private final long originNanos;

    SystemClock() {
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
