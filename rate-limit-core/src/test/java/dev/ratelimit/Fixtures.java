package dev.ratelimit;

import dev.ratelimit.store.memory.MemoryStore;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

import java.time.Duration;
import java.time.Instant;

/** Shared test helpers: a clock at a round instant, a store on it, random policies for properties. */
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

    /** Any of the five algorithms, with counts 1 to {@code maxCount} and periods of 1 µs to {@code maxMicros}. */
    public static Arbitrary<Policy> anyPolicy(long maxCount, long maxMicros) {
        Arbitrary<Long> n = Arbitraries.longs().between(1, maxCount);
        Arbitrary<Duration> d = Arbitraries.longs().between(1, maxMicros).map(us -> Duration.ofNanos(us * 1_000));
        return Arbitraries.oneOf(
                Combinators.combine(n, n, d).as(Policy::tokenBucket),
                Combinators.combine(n, d).as(Policy::fixedWindow),
                Combinators.combine(n, d).as(Policy::slidingWindowLog),
                Combinators.combine(n, d).as(Policy::slidingWindowCounter),
                Combinators.combine(n, d, n).as(Policy::gcra));
    }

    public static long seconds(double s) {
        return Math.round(s * 1_000_000);
    }
}
