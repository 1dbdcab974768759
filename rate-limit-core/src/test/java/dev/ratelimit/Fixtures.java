package dev.ratelimit;

import dev.ratelimit.store.memory.MemoryStore;

import java.time.Instant;

/** Shared test helpers: a clock at a round instant and a store on it. */
public final class Fixtures {
    /** 2026-01-01T00:00:00Z, a multiple of every window used in tests. */
    public static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    private Fixtures() {
    }

    public static ManualClock clock() {
        return new ManualClock(START);
    }

    public static RateLimiter memoryLimiter(ManualClock clock, Policy... policies) {
        return MemoryStore.builder().clock(clock).build().limiter(Limit.of("test", policies));
    }

    public static long seconds(double s) {
        return Math.round(s * 1_000_000);
    }
}
