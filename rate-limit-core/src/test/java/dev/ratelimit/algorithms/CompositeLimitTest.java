package dev.ratelimit.algorithms;

import dev.ratelimit.Decision;
import dev.ratelimit.FixedWindow;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.TokenBucket;
import dev.ratelimit.Verdict;
import dev.ratelimit.store.memory.MemoryStore;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static dev.ratelimit.Fixtures.clock;
import static org.assertj.core.api.Assertions.assertThat;

class CompositeLimitTest {
    private final ManualClock clock = clock();
    /** Bursts of 3 per second, and 5 per minute. */
    private final TokenBucket burst = TokenBucket.perSecond(3, 3);
    private final FixedWindow sustained = Policy.fixedWindow(5, Duration.ofMinutes(1));
    private final RateLimiter limiter = MemoryStore.builder().clock(clock).build().limiter(Limit.of("api", burst, sustained));

    @Test
    void passesOnlyWhenEveryPolicyAllows() {
        for (int i = 0; i < 3; i++) {
            assertThat(limiter.tryAcquire("k").allowed()).isTrue();
        }
        Decision burstOver = limiter.tryAcquire("k");
        assertThat(burstOver.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(burstOver.policy()).isEqualTo(burst);
        assertThat(burstOver.retryAfterMicros()).isEqualTo(333_334L);

        clock.advance(Duration.ofSeconds(1));
        assertThat(limiter.tryAcquire("k").allowed()).isTrue();
        Decision fifth = limiter.tryAcquire("k");
        assertThat(fifth.allowed()).isTrue();
        assertThat(fifth.policy()).as("the policy closest to rejecting").isEqualTo(sustained);
        assertThat(fifth.remaining()).isZero();

        Decision sixth = limiter.tryAcquire("k");
        assertThat(sixth.policy()).as("the policy with the longest wait").isEqualTo(sustained);
        assertThat(sixth.retryAfterMicros()).isEqualTo(59_000_000L);
    }

    @Test
    void aRejectionConsumesFromNone() {
        limiter.tryAcquire("k", 3);
        clock.advance(Duration.ofSeconds(1));
        // The bucket is full again (3), the window has 2 left: cost 3 is rejected by the window alone.
        Decision d = limiter.tryAcquire("k", 3);
        assertThat(d.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(d.policy()).isEqualTo(sustained);
        // Had the bucket lost its 3 tokens, this would be rejected too.
        assertThat(limiter.tryAcquire("k", 2).allowed()).isTrue();
    }

    @Test
    void aCostAboveAnyPolicysLimitCanNeverPass() {
        Decision d = limiter.tryAcquire("k", 4);
        assertThat(d.verdict()).isEqualTo(Verdict.COST_EXCEEDS_LIMIT);
        assertThat(d.policy()).isEqualTo(burst);
    }

    record Step(long advanceMicros, long cost) {
    }

    @Provide
    Arbitrary<List<Step>> traffic() {
        return Combinators.combine(Arbitraries.longs().between(0, 700_000), Arbitraries.longs().between(1, 3))
                .as(Step::new).list().ofMaxSize(200);
    }

    @Property(tries = 200)
    void rejectedRequestsLeaveNoTrace(@ForAll("traffic") List<Step> steps) {
        // Twin limiters on one clock: the first sees every request, the second only those the first allowed.
        ManualClock c = clock();
        Limit limit = Limit.of("api", TokenBucket.perSecond(3, 3), Policy.slidingWindowLog(5, Duration.ofSeconds(2)),
                Policy.slidingWindowCounter(6, Duration.ofSeconds(3)));
        RateLimiter all = MemoryStore.builder().clock(c).build().limiter(limit);
        RateLimiter allowedOnly = MemoryStore.builder().clock(c).build().limiter(limit);
        for (Step step : steps) {
            c.advanceMicros(step.advanceMicros());
            Decision d = all.tryAcquire("k", step.cost());
            if (d.allowed()) {
                assertThat(allowedOnly.tryAcquire("k", step.cost())).isEqualTo(d);
            }
        }
    }
}
