package dev.ratelimit.algorithms;

import dev.ratelimit.Decision;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Verdict;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static dev.ratelimit.Fixtures.clock;
import static dev.ratelimit.Fixtures.memoryLimiter;
import static org.assertj.core.api.Assertions.assertThat;

class SlidingWindowLogTest {
    private final ManualClock clock = clock();
    private final RateLimiter log = memoryLimiter(clock, Policy.slidingWindowLog(3, Duration.ofSeconds(10)));

    @Test
    void countsExactlyOverAnyWindowAndWaitsForTheOldestToLeave() {
        log.tryAcquire("k");                       // t=0
        clock.advance(Duration.ofSeconds(4));
        log.tryAcquire("k");                       // t=4
        clock.advance(Duration.ofSeconds(2));
        Decision third = log.tryAcquire("k");      // t=6
        assertThat(third.remaining()).isZero();
        assertThat(third.resetAfterMicros()).isEqualTo(10_000_000L);
        Decision fourth = log.tryAcquire("k");
        assertThat(fourth.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(fourth.retryAfterMicros()).isEqualTo(4_000_000L); // t=0 leaves at t=10
        clock.advance(Duration.ofMillis(3_999));
        assertThat(log.tryAcquire("k").allowed()).isFalse();
        clock.advance(Duration.ofMillis(1));
        Decision passes = log.tryAcquire("k");     // t=10
        assertThat(passes.allowed()).isTrue();
        assertThat(passes.remaining()).isZero();
        assertThat(log.tryAcquire("k").retryAfterMicros()).isEqualTo(4_000_000L); // t=4 leaves at t=14
    }

    @Test
    void costTakesOneEntryPerUnitAndWaitsForEnoughToLeave() {
        log.tryAcquire("k", 2);                    // t=0: two units
        clock.advance(Duration.ofSeconds(5));
        log.tryAcquire("k");                       // t=5
        Decision d = log.tryAcquire("k", 3);
        assertThat(d.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(d.retryAfterMicros()).isEqualTo(10_000_000L); // all three must leave: the t=5 one at t=15
        assertThat(log.tryAcquire("k", 4).verdict()).isEqualTo(Verdict.COST_EXCEEDS_LIMIT);
    }

    @Test
    void idleForAWindowStartsOver() {
        log.tryAcquire("k", 3);
        clock.advance(Duration.ofSeconds(10));
        Decision d = log.tryAcquire("k", 3);
        assertThat(d.allowed()).isTrue();
        assertThat(d.resetAfterMicros()).isEqualTo(10_000_000L);
    }

    @Test
    void subSecondWindowsAreExact() {
        RateLimiter fast = memoryLimiter(clock, Policy.slidingWindowLog(2, Duration.ofMillis(250)));
        fast.tryAcquire("k");
        clock.advanceMicros(100_001);
        fast.tryAcquire("k");
        assertThat(fast.tryAcquire("k").retryAfterMicros()).isEqualTo(149_999L);
    }

    @Test
    void aRefusalOnTheExactMicrosecondEntriesLeaveCountsThemAsGone() {
        log.tryAcquire("k", 3);                    // t=0: full
        clock.advance(Duration.ofSeconds(10));     // t=10: the three entries stamped 0 no longer count
        Decision tooCostly = log.tryAcquire("k", 4);
        assertThat(tooCostly.verdict()).isEqualTo(Verdict.COST_EXCEEDS_LIMIT);
        assertThat(tooCostly.remaining()).as("a refusal writes nothing, yet remaining counts only live entries").isEqualTo(3);
        assertThat(tooCostly.resetAfterMicros()).isZero();
    }

    @Test
    void aCostlyRequestWaitsOnlyForAsManyOfTheOldestEntriesAsItNeeds() {
        // Limit 10: the log holds 8 entries, stamped 0 to 7 s. Cost 3 needs one to leave: the t=0 one, at 10 s.
        RateLimiter ten = memoryLimiter(clock, Policy.slidingWindowLog(10, Duration.ofSeconds(10)));
        for (int i = 0; i < 8; i++) {
            assertThat(ten.tryAcquire("k").allowed()).isTrue();
            if (i < 7) {
                clock.advance(Duration.ofSeconds(1));
            }
        }
        Decision d = ten.tryAcquire("k", 3);
        assertThat(d.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(d.retryAfterMicros()).isEqualTo(3_000_000L);
    }
}
