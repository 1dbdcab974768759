package dev.ratelimit.algorithms;

import dev.ratelimit.Decision;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.TokenBucket;
import dev.ratelimit.Verdict;
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
}
