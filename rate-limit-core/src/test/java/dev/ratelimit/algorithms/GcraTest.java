package dev.ratelimit.algorithms;

import dev.ratelimit.Decision;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.TokenBucket;
import dev.ratelimit.Verdict;
import dev.ratelimit.Limit;
import dev.ratelimit.store.memory.MemoryStore;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Random;

import static dev.ratelimit.Fixtures.clock;
import static dev.ratelimit.Fixtures.memoryLimiter;
import static org.assertj.core.api.Assertions.assertThat;

class GcraTest {
    private final ManualClock clock = clock();
    /** 2 per second, bursts of 4. */
    private final RateLimiter gcra = memoryLimiter(clock, Policy.gcra(2, Duration.ofSeconds(1), 4));

    @Test
    void admitsTheBurstThenOneRequestPerEmissionInterval() {
        for (int i = 0; i < 4; i++) {
            Decision d = gcra.tryAcquire("k");
            assertThat(d.allowed()).isTrue();
            assertThat(d.remaining()).isEqualTo(3 - i);
            assertThat(d.resetAfterMicros()).isEqualTo((i + 1) * 500_000L);
        }
        Decision fifth = gcra.tryAcquire("k");
        assertThat(fifth.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(fifth.retryAfterMicros()).isEqualTo(500_000L);
        clock.advance(Duration.ofMillis(500));
        assertThat(gcra.tryAcquire("k").allowed()).isTrue();
        assertThat(gcra.tryAcquire("k").allowed()).isFalse();
    }

    @Test
    void costAboveTheBurstCanNeverPass() {
        assertThat(gcra.tryAcquire("k", 5).verdict()).isEqualTo(Verdict.COST_EXCEEDS_LIMIT);
        assertThat(gcra.tryAcquire("k", 4).allowed()).isTrue();
    }

    @Test
    void decidesExactlyLikeTheEquivalentTokenBucket() {
        ManualClock c = clock();
        RateLimiter g = memoryLimiter(c, Policy.gcra(3, Duration.ofSeconds(1), 5));
        RateLimiter b = memoryLimiter(c, new TokenBucket(5, 3, Duration.ofSeconds(1)));
        Random random = new Random(42);
        for (int i = 0; i < 20_000; i++) {
            long cost = 1 + random.nextInt(3);
            Decision dg = g.tryAcquire("k", cost);
            Decision db = b.tryAcquire("k", cost);
            assertThat(dg.verdict()).isEqualTo(db.verdict());
            assertThat(dg.remaining()).isEqualTo(db.remaining());
            assertThat(dg.retryAfterMicros()).isEqualTo(db.retryAfterMicros());
            assertThat(dg.resetAfterMicros()).isEqualTo(db.resetAfterMicros());
            c.advanceMicros(random.nextInt(700_000));
        }
    }

    @Test
    void afterTheClockGoesBackFarResetIsWhenTheTheoreticalArrivalTimeComes() {
        for (int i = 0; i < 4; i++) {
            gcra.tryAcquire("k");
        }
        // The burst is spent: the theoretical arrival time is 2 s ahead, a whole microsecond.
        clock.advance(Duration.ofSeconds(-1));
        Decision d = gcra.tryAcquire("k");
        assertThat(d.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(d.resetAfterMicros()).isEqualTo(3_000_000L);
        assertThat(d.retryAfterMicros()).isEqualTo(1_500_000L);
    }

    @Test
    void aCleanUpKeepsASpentStateUntilItsTheoreticalArrivalTimeAndNoLonger() {
        MemoryStore store = MemoryStore.builder().clock(clock).build();
        RateLimiter limiter = store.limiter(Limit.of("g", Policy.gcra(2, Duration.ofSeconds(1), 4)));
        limiter.tryAcquire("k", 4); // arrival time 2 s ahead, no remainder
        store.cleanUp();
        assertThat(store.trackedKeys()).isEqualTo(1);
        assertThat(limiter.tryAcquire("k").retryAfterMicros()).as("the spent burst survived the clean-up").isEqualTo(500_000L);
        clock.advance(Duration.ofSeconds(2));
        store.cleanUp();
        assertThat(store.trackedKeys()).as("fresh again on the exact microsecond").isZero();
    }

    @Test
    void aCleanUpCountsTheFractionOfAMicrosecondStillOwed() {
        // 3 per second, burst 1: one request puts the arrival time 333,333 1/3 µs ahead.
        MemoryStore store = MemoryStore.builder().clock(clock).build();
        RateLimiter limiter = store.limiter(Limit.of("g", Policy.gcra(3, Duration.ofSeconds(1), 1)));
        assertThat(limiter.tryAcquire("k").allowed()).isTrue();
        clock.advanceMicros(333_333);
        store.cleanUp();
        Decision d = limiter.tryAcquire("k");
        assertThat(d.allowed()).as("a third of a µs is still owed").isFalse();
        assertThat(d.retryAfterMicros()).isEqualTo(1);
    }
}
