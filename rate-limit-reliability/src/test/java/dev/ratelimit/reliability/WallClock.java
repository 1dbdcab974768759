package dev.ratelimit.reliability;

import dev.ratelimit.Clock;

import java.time.Instant;

/**
 * The test's time: the wall clock, read the way Redis reads it ({@code TIME} is the real-time
 * clock), so that a decision Redis made while a request was in flight lies between the request's
 * send and answer times. (The library's {@code Clock.system()} is monotonic from an anchor instead.)
 */
final class WallClock implements Clock {
    static final WallClock INSTANCE = new WallClock();

    private WallClock() {
    }

    @Override
    public long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000L;
    }

    static long now() {
        return INSTANCE.nowMicros();
    }
}
