package dev.ratelimit.algorithms;

import dev.ratelimit.Decision;
import dev.ratelimit.ManualClock;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.TokenBucket;
import dev.ratelimit.Verdict;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static dev.ratelimit.Fixtures.clock;
import static dev.ratelimit.Fixtures.memoryLimiter;
import static org.assertj.core.api.Assertions.assertThat;

class TokenBucketTest {
    private final ManualClock clock = clock();
    /** The seed's free scan tier: 10 tokens, 1 per second. */
    private final RateLimiter scan = memoryLimiter(clock, TokenBucket.perSecond(10, 1));

    @Test
    void admitsTheWholeCapacityAtOnceThenRejectsWithTheExactWait() {
        for (int i = 0; i < 10; i++) {
            Decision d = scan.tryAcquire("client");
            assertThat(d.allowed()).isTrue();
            assertThat(d.remaining()).isEqualTo(9 - i);
            assertThat(d.resetAfterMicros()).isEqualTo((i + 1) * 1_000_000L);
            assertThat(d.retryAfterMicros()).isZero();
        }
        Decision eleventh = scan.tryAcquire("client");
        assertThat(eleventh.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(eleventh.remaining()).isZero();
        assertThat(eleventh.retryAfterMicros()).isEqualTo(1_000_000L);
        assertThat(eleventh.resetAfterMicros()).isEqualTo(10_000_000L);
        assertThat(eleventh.limit()).isEqualTo(10);
    }

    @Test
    void refillsContinuouslyAndPartially() {
        drain(10);
        clock.advance(Duration.ofMillis(400));
        Decision early = scan.tryAcquire("client");
        assertThat(early.allowed()).isFalse();
        assertThat(early.retryAfterMicros()).isEqualTo(600_000L);
        clock.advance(Duration.ofMillis(600));
        assertThat(scan.tryAcquire("client").allowed()).isTrue();
        assertThat(scan.tryAcquire("client").retryAfterMicros()).isEqualTo(1_000_000L);
    }

    @Test
    void weighsRequestsByCost() {
        Decision seven = scan.tryAcquire("client", 7);
        assertThat(seven.allowed()).isTrue();
        assertThat(seven.remaining()).isEqualTo(3);
        Decision four = scan.tryAcquire("client", 4);
        assertThat(four.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(four.retryAfterMicros()).isEqualTo(1_000_000L);
        assertThat(four.remaining()).isEqualTo(3);
        assertThat(scan.tryAcquire("client", 3).allowed()).isTrue();
    }

    @Test
    void saysDistinctlyThatACostAboveCapacityCanNeverPass() {
        Decision d = scan.tryAcquire("client", 11);
        assertThat(d.verdict()).isEqualTo(Verdict.COST_EXCEEDS_LIMIT);
        assertThat(d.retryAfterMicros()).isEqualTo(Decision.NEVER);
        assertThat(d.retryAfter()).isEmpty();
        assertThat(d.remaining()).isEqualTo(10);
        assertThat(scan.tryAcquire("client", 10).allowed()).as("nothing was consumed").isTrue();
    }

    @Test
    void idleLongEnoughRefillsToFullButNoFurther() {
        drain(10);
        clock.advance(Duration.ofDays(30));
        Decision d = scan.tryAcquire("client");
        assertThat(d.remaining()).isEqualTo(9);
        assertThat(d.resetAfterMicros()).isEqualTo(1_000_000L);
    }

    @Test
    void keysAreIndependent() {
        drain(10);
        assertThat(scan.tryAcquire("client").allowed()).isFalse();
        assertThat(scan.tryAcquire("other").remaining()).isEqualTo(9);
    }

    @Test
    void aClockGoingBackwardsRefundsNothing() {
        drain(10);
        clock.advance(Duration.ofSeconds(-5));
        Decision d = scan.tryAcquire("client");
        assertThat(d.allowed()).isFalse();
        // nothing refills until the clock is back where it was (5 s), then one token takes 1 s
        assertThat(d.retryAfterMicros()).isEqualTo(6_000_000L);
    }

    @Test
    void afterTheClockGoesBackRetryAfterIsWhenTheRequestReallyPasses() {
        drain(10);
        clock.advance(Duration.ofSeconds(-5));
        Decision d = scan.tryAcquire("client");
        assertThat(d.allowed()).isFalse();
        // No refill until the clock is back where it was: 5 s, then the 1 s a token takes.
        clock.advanceMicros(d.retryAfterMicros() - 1);
        assertThat(scan.tryAcquire("client").allowed()).as("1 µs early").isFalse();
        clock.advanceMicros(1);
        assertThat(scan.tryAcquire("client").allowed()).as("exactly after retryAfter").isTrue();
        assertThat(d.retryAfterMicros()).isEqualTo(6_000_000L);
        assertThat(d.resetAfterMicros()).isEqualTo(15_000_000L);
    }

    @Test
    void thirdsOfASecondNeverDrift() {
        // 3 per second, capacity 1: one request every 333,333.33 µs. After a million exact waits, still exact.
        ManualClock c = clock();
        RateLimiter limiter = memoryLimiter(c, TokenBucket.perSecond(1, 3));
        long admitted = 0;
        long start = c.nowMicros();
        for (int i = 0; i < 1_000_000; i++) {
            Decision d = limiter.tryAcquire("k");
            if (d.allowed()) {
                admitted++;
            } else {
                c.advanceMicros(d.retryAfterMicros());
                assertThat(limiter.tryAcquire("k").allowed()).isTrue();
                admitted++;
            }
        }
        long elapsed = c.nowMicros() - start;
        // 1 (the initial token) + 3 tokens per elapsed second, exactly: never more.
        assertThat(admitted).isLessThanOrEqualTo(1 + elapsed * 3 / 1_000_000);
        assertThat(admitted).isEqualTo(1_000_000);
        // Each wait is rounded up to a whole microsecond, so a client that sleeps exactly retryAfter
        // is at most 1 µs late per request; it is never early.
        assertThat(elapsed).isBetween(999_999L * 1_000_000 / 3, 999_999L * 1_000_000 / 3 + 999_999);
    }

    @Test
    void aThousandPerDayIsExact() {
        RateLimiter daily = memoryLimiter(clock, dev.ratelimit.Policy.tokenBucket(1000, 1000, Duration.ofDays(1)));
        for (int i = 0; i < 1000; i++) {
            assertThat(daily.tryAcquire("k").allowed()).isTrue();
        }
        Decision d = daily.tryAcquire("k");
        assertThat(d.retryAfterMicros()).isEqualTo(86_400_000L);
        clock.advanceMicros(86_400_000L - 1);
        assertThat(daily.tryAcquire("k").allowed()).isFalse();
        clock.advanceMicros(1);
        assertThat(daily.tryAcquire("k").allowed()).isTrue();
    }

    @Test
    void aBucketRefilledOnTheExactMicrosecondHoldsNoMoreThanItsCapacity() {
        // 1 token, 3 per second: a token is 1,000,000 units, 3 units drip in per µs.
        RateLimiter limiter = memoryLimiter(clock, TokenBucket.perSecond(1, 3));
        assertThat(limiter.tryAcquire("k").allowed()).isTrue();
        // 333,334 µs drip 1,000,002 units: full again, and the 2 units beyond full are lost.
        clock.advanceMicros(333_334);
        assertThat(limiter.tryAcquire("k").allowed()).isTrue();
        // 333,333 µs more drip 999,999 units: one unit short of a token. (Kept, the 2 lost units
        // would admit 2 requests within 333,333 µs, more than capacity 1 + 3/s allows.)
        clock.advanceMicros(333_333);
        Decision d = limiter.tryAcquire("k");
        assertThat(d.allowed()).isFalse();
        assertThat(d.retryAfterMicros()).isEqualTo(1);
    }

    private void drain(int n) {
        for (int i = 0; i < n; i++) {
            assertThat(scan.tryAcquire("client").allowed()).isTrue();
        }
    }

    @Test
    void theDurationsMatchTheMicrosecondsAndOnlyANeverPassingCostHasNoRetryAfter() {
        Decision first = scan.tryAcquire("client");
        assertThat(first.retryAfter()).contains(Duration.ZERO);
        assertThat(first.resetAfter()).isEqualTo(Duration.ofSeconds(1));
        drain(9);
        Decision rejected = scan.tryAcquire("client");
        assertThat(rejected.retryAfter()).contains(Duration.ofSeconds(1));
        assertThat(rejected.resetAfter()).isEqualTo(Duration.ofSeconds(10));
        assertThat(scan.tryAcquire("client", 11).retryAfter()).isEmpty();
    }
}
