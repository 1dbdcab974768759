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

class SlidingWindowCounterTest {
    private final ManualClock clock = clock();
    /** 10 per 10 s. */
    private final RateLimiter counter = memoryLimiter(clock, Policy.slidingWindowCounter(10, Duration.ofSeconds(10)));

    @Test
    void weighsThePreviousWindowByItsOverlap() {
        for (int i = 0; i < 10; i++) {
            assertThat(counter.tryAcquire("k").allowed()).isTrue();
        }
        Decision full = counter.tryAcquire("k");
        assertThat(full.verdict()).isEqualTo(Verdict.REJECTED);
        // The current window is full: wait into the next, where 10 * (10 - e)/10 + 1 <= 10 needs e >= 1 s.
        assertThat(full.retryAfterMicros()).isEqualTo(11_000_000L);
        assertThat(full.resetAfterMicros()).isEqualTo(20_000_000L);

        clock.advance(Duration.ofSeconds(13)); // 3 s into the next window: previous weighs 7
        Decision d = counter.tryAcquire("k");
        assertThat(d.allowed()).isTrue();
        assertThat(d.remaining()).isEqualTo(2);
        counter.tryAcquire("k");
        counter.tryAcquire("k");
        Decision over = counter.tryAcquire("k");
        // 10 * (10 - e)/10 + 3 + 1 <= 10 needs e >= 4 s: 1 s from now.
        assertThat(over.retryAfterMicros()).isEqualTo(1_000_000L);
        clock.advance(Duration.ofSeconds(1));
        assertThat(counter.tryAcquire("k").allowed()).isTrue();
    }

    @Test
    void forgetsEverythingAfterTwoQuietWindows() {
        counter.tryAcquire("k", 10);
        clock.advance(Duration.ofSeconds(20));
        Decision d = counter.tryAcquire("k", 10);
        assertThat(d.allowed()).isTrue();
        assertThat(d.remaining()).isZero();
    }

    @Test
    void refusesCostAboveTheLimit() {
        assertThat(counter.tryAcquire("k", 11).verdict()).isEqualTo(Verdict.COST_EXCEEDS_LIMIT);
    }

    @Test
    void remainingCountsThePreviousWindowRoundedUp() {
        counter.tryAcquire("k", 3);
        clock.advance(Duration.ofMillis(15_500)); // 5.5 s into the next window: previous weighs 3 * 4.5/10 = 1.35 -> 2
        assertThat(counter.tryAcquire("k").remaining()).isEqualTo(7);
    }

    @Test
    void aRequestOnTheFirstMicrosecondOfAWindowCountsInThatWindow() {
        counter.tryAcquire("k", 3);
        clock.advance(Duration.ofSeconds(10)); // exactly the next window's start
        Decision d = counter.tryAcquire("k");
        assertThat(d.remaining()).isEqualTo(6); // 10 - 1 - 3 (the previous window weighs in full)
        assertThat(d.resetAfterMicros()).as("the new request counts until this window's successor ends").isEqualTo(20_000_000L);
        clock.advance(Duration.ofSeconds(5)); // previous weighs 3 * 5/10 = 1.5 -> 2
        assertThat(counter.tryAcquire("k").remaining()).isEqualTo(6); // 10 - 2 - 2
    }

    @Test
    void whenOnlyThePreviousWindowCountsTheQuotaIsBackAtTheEndOfThisOne() {
        counter.tryAcquire("k", 10);
        clock.advance(Duration.ofMillis(10_500)); // 0.5 s into the next window: previous weighs 9.5
        Decision d = counter.tryAcquire("k");
        assertThat(d.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(d.retryAfterMicros()).isEqualTo(500_000L);
        assertThat(d.resetAfterMicros()).isEqualTo(9_500_000L);
        Decision untouched = counter.tryAcquire("other", 11);
        assertThat(untouched.verdict()).isEqualTo(Verdict.COST_EXCEEDS_LIMIT);
        assertThat(untouched.resetAfterMicros()).as("nothing counted, nothing to reset").isZero();
    }
}
