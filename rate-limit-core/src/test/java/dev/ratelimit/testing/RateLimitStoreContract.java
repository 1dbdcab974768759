package dev.ratelimit.testing;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimitStore;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import dev.ratelimit.Verdict;
import dev.ratelimit.store.memory.MemoryStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract every {@link RateLimitStore} keeps: for the same requests at the same times it
 * decides exactly what the in-memory store decides, field by field. Each test drives one limit on
 * a {@link ManualClock}, checks chosen steps against hand-computed values, and checks every step
 * against a {@link MemoryStore} on the same clock.
 *
 * <p>A new store extends this class and implements {@link #createStore}; its decisions must be
 * timed by the given clock (the Redis store's {@code timeFromClock}) and its denial cache, if any,
 * switched off (a cached denial is the same answer from another {@link Source}).
 */
public abstract class RateLimitStoreContract {
    /** 2026-03-02T10:00:00Z: on a whole hour, so epoch-aligned windows start here. */
    protected static final Instant START = Instant.parse("2026-03-02T10:00:00Z");

    protected ManualClock clock;
    private RateLimitStore store;
    private MemoryStore reference;

    /** The store under test, timed by {@code clock}. */
    protected abstract RateLimitStore createStore(ManualClock clock);

    @BeforeEach
    void createStores() {
        clock = new ManualClock(START);
        store = createStore(clock);
        reference = MemoryStore.builder().clock(clock).build();
    }

    @AfterEach
    void closeStores() {
        store.close();
    }

    /** One client's requests against one limit on both stores. */
    protected final class Run {
        private final RateLimiter tested;
        private final RateLimiter expected;
        private final String key = "client-" + UUID.randomUUID();

        Run(Limit limit) {
            this.tested = store.limiter(limit);
            this.expected = reference.limiter(limit);
        }

        /** Decides {@code cost} on both stores and asserts the decisions are equal. */
        public Decision acquire(long cost) {
            Decision want = expected.tryAcquire(key, cost);
            Decision got = tested.tryAcquire(key, cost);
            assertThat(got).as("decision at %s for cost %d", clock, cost).isEqualTo(want);
            // Header writers describe a decision by the policies of the limit it was made by.
            assertThat(tested.limitFor(got.source()).policies()).as("the limit %s was made by", got).contains(got.policy());
            return got;
        }

        public Run advance(Duration by) {
            clock.advance(by);
            return this;
        }
    }

    protected Run run(Policy... policies) {
        return new Run(Limit.of("contract", policies));
    }

    private static void assertDecision(Decision d, Verdict verdict, long remaining, long resetAfter, long retryAfter) {
        assertThat(d.source()).isEqualTo(Source.STORE);
        assertThat(d.verdict()).isEqualTo(verdict);
        assertThat(d.remaining()).as("remaining").isEqualTo(remaining);
        assertThat(d.resetAfterMicros()).as("resetAfter").isEqualTo(resetAfter);
        assertThat(d.retryAfterMicros()).as("retryAfter").isEqualTo(retryAfter);
    }

    @Test
    void tokenBucketSpendsItsCapacityThenRefillsPartially() {
        Run run = run(Policy.tokenBucket(3, 1, Duration.ofSeconds(1)));
        assertDecision(run.acquire(1), Verdict.ALLOWED, 2, 1_000_000, 0);
        assertDecision(run.acquire(1), Verdict.ALLOWED, 1, 2_000_000, 0);
        assertDecision(run.acquire(1), Verdict.ALLOWED, 0, 3_000_000, 0);
        assertDecision(run.acquire(1), Verdict.REJECTED, 0, 3_000_000, 1_000_000);
        run.advance(Duration.ofMillis(400));
        assertDecision(run.acquire(1), Verdict.REJECTED, 0, 2_600_000, 600_000);
        run.advance(Duration.ofMillis(600));
        assertDecision(run.acquire(1), Verdict.ALLOWED, 0, 3_000_000, 0);
    }

    @Test
    void aTokenBucketRefilledOnTheExactMicrosecondHoldsNoMoreThanItsCapacity() {
        // 1 token, 3 a second: 333,334 us drip a token and 2 units more, which a full bucket loses.
        Run run = run(Policy.tokenBucket(1, 3, Duration.ofSeconds(1)));
        assertDecision(run.acquire(1), Verdict.ALLOWED, 0, 333_334, 0);
        run.advance(Duration.ofNanos(333_334_000));
        assertDecision(run.acquire(1), Verdict.ALLOWED, 0, 333_334, 0);
        // 333,333 us more drip one unit short of a token.
        run.advance(Duration.ofNanos(333_333_000));
        assertDecision(run.acquire(1), Verdict.REJECTED, 0, 1, 1);
    }

    @Test
    void tokenBucketWeighsCostAndRefusesCostAboveCapacity() {
        Run run = run(Policy.tokenBucket(5, 5, Duration.ofSeconds(1)));
        assertDecision(run.acquire(3), Verdict.ALLOWED, 2, 600_000, 0);
        assertDecision(run.acquire(3), Verdict.REJECTED, 2, 600_000, 200_000);
        assertDecision(run.acquire(6), Verdict.COST_EXCEEDS_LIMIT, 2, 600_000, Decision.NEVER);
        run.advance(Duration.ofMillis(200));
        assertDecision(run.acquire(3), Verdict.ALLOWED, 0, 1_000_000, 0);
    }

    @Test
    void fixedWindowResetsAtTheEpochAlignedEdge() {
        clock.advance(Duration.ofSeconds(59).plusMillis(500));
        Run run = run(Policy.fixedWindow(2, Duration.ofMinutes(1)));
        assertDecision(run.acquire(1), Verdict.ALLOWED, 1, 500_000, 0);
        assertDecision(run.acquire(1), Verdict.ALLOWED, 0, 500_000, 0);
        assertDecision(run.acquire(1), Verdict.REJECTED, 0, 500_000, 500_000);
        run.advance(Duration.ofNanos(499_999_000));
        assertDecision(run.acquire(1), Verdict.REJECTED, 0, 1, 1);
        run.advance(Duration.ofNanos(1_000));
        assertDecision(run.acquire(2), Verdict.ALLOWED, 0, 60_000_000, 0);
        assertDecision(run.acquire(3), Verdict.COST_EXCEEDS_LIMIT, 0, 60_000_000, Decision.NEVER);
    }

    @Test
    void slidingWindowLogCountsExactlyOverAnyWindow() {
        Run run = run(Policy.slidingWindowLog(3, Duration.ofSeconds(10)));
        assertDecision(run.acquire(1), Verdict.ALLOWED, 2, 10_000_000, 0);
        run.advance(Duration.ofSeconds(4));
        assertDecision(run.acquire(1), Verdict.ALLOWED, 1, 10_000_000, 0);
        run.advance(Duration.ofSeconds(4));
        assertDecision(run.acquire(1), Verdict.ALLOWED, 0, 10_000_000, 0);
        run.advance(Duration.ofSeconds(1));
        assertDecision(run.acquire(1), Verdict.REJECTED, 0, 9_000_000, 1_000_000);
        run.advance(Duration.ofSeconds(1));
        assertDecision(run.acquire(1), Verdict.ALLOWED, 0, 10_000_000, 0);
        assertDecision(run.acquire(2), Verdict.REJECTED, 0, 10_000_000, 8_000_000);
        assertDecision(run.acquire(4), Verdict.COST_EXCEEDS_LIMIT, 0, 10_000_000, Decision.NEVER);
        run.advance(Duration.ofSeconds(8));
        assertDecision(run.acquire(2), Verdict.ALLOWED, 0, 10_000_000, 0);
    }

    @Test
    void slidingWindowCounterWeighsThePreviousWindow() {
        Run run = run(Policy.slidingWindowCounter(10, Duration.ofSeconds(10)));
        assertDecision(run.acquire(10), Verdict.ALLOWED, 0, 20_000_000, 0);
        run.advance(Duration.ofMillis(12_500));
        // previous 10 weighted by 7.5/10 = 7.5, rounded up: 2 left
        assertDecision(run.acquire(2), Verdict.ALLOWED, 0, 17_500_000, 0);
        assertDecision(run.acquire(1), Verdict.REJECTED, 0, 17_500_000, 500_000);
        run.advance(Duration.ofMillis(500));
        assertDecision(run.acquire(1), Verdict.ALLOWED, 0, 17_000_000, 0);
        assertDecision(run.acquire(9), Verdict.REJECTED, 0, 17_000_000, 13_666_667);
    }

    @Test
    void gcraSpacesRequestsByTheEmissionInterval() {
        Run run = run(Policy.gcra(2, Duration.ofSeconds(1), 2));
        assertDecision(run.acquire(1), Verdict.ALLOWED, 1, 500_000, 0);
        assertDecision(run.acquire(1), Verdict.ALLOWED, 0, 1_000_000, 0);
        assertDecision(run.acquire(1), Verdict.REJECTED, 0, 1_000_000, 500_000);
        run.advance(Duration.ofMillis(250));
        assertDecision(run.acquire(1), Verdict.REJECTED, 0, 750_000, 250_000);
        assertDecision(run.acquire(3), Verdict.COST_EXCEEDS_LIMIT, 0, 750_000, Decision.NEVER);
    }

    @Test
    void gcraKeepsThirdsOfAMicrosecondExactly() {
        Run run = run(Policy.gcra(3, Duration.ofSeconds(1), 1));
        assertDecision(run.acquire(1), Verdict.ALLOWED, 0, 333_334, 0);
        assertDecision(run.acquire(1), Verdict.REJECTED, 0, 333_334, 333_334);
        run.advance(Duration.ofNanos(333_333_000));
        assertDecision(run.acquire(1), Verdict.REJECTED, 0, 1, 1);
        run.advance(Duration.ofNanos(1_000));
        assertDecision(run.acquire(1), Verdict.ALLOWED, 0, 333_334, 0);
        for (int i = 0; i < 30; i++) {
            run.advance(Duration.ofNanos(333_333_000));
            run.acquire(1);
        }
    }

    @Test
    void everyAlgorithmForgetsAnIdleClient() {
        Policy[] policies = {
                Policy.tokenBucket(2, 1, Duration.ofSeconds(1)),
                Policy.fixedWindow(2, Duration.ofSeconds(1)),
                Policy.slidingWindowLog(2, Duration.ofSeconds(1)),
                Policy.slidingWindowCounter(2, Duration.ofSeconds(1)),
                Policy.gcra(1, Duration.ofSeconds(1), 2)};
        for (Policy policy : policies) {
            Run run = run(policy);
            run.acquire(2);
            assertThat(run.acquire(1).verdict()).as("%s exhausted", policy).isEqualTo(Verdict.REJECTED);
            run.advance(Duration.ofSeconds(3));
            Decision fresh = run.acquire(1);
            assertThat(fresh.verdict()).as("%s after idling", policy).isEqualTo(Verdict.ALLOWED);
            assertThat(fresh.remaining()).as("%s after idling", policy).isEqualTo(1);
        }
    }

    @Test
    void compositeRejectsWithTheLongestWaitAndConsumesFromNone() {
        clock.advance(Duration.ofMinutes(30));
        Run run = run(Policy.tokenBucket(2, 1, Duration.ofSeconds(1)), Policy.fixedWindow(3, Duration.ofHours(1)));
        Decision first = run.acquire(1);
        assertThat(first.policy()).isEqualTo(Policy.tokenBucket(2, 1, Duration.ofSeconds(1)));
        assertDecision(first, Verdict.ALLOWED, 1, 1_000_000, 0);
        assertDecision(run.acquire(1), Verdict.ALLOWED, 0, 2_000_000, 0);
        Decision byBucket = run.acquire(1);
        assertDecision(byBucket, Verdict.REJECTED, 0, 2_000_000, 1_000_000);
        run.advance(Duration.ofSeconds(1));
        Decision third = run.acquire(1);
        // both have 0 left: the window, whose quota comes back last, describes the decision; a client
        // told the bucket's 2 s would be refused then for 30 minutes
        assertThat(third.policy()).isEqualTo(Policy.fixedWindow(3, Duration.ofHours(1)));
        assertDecision(third, Verdict.ALLOWED, 0, 1_799_000_000, 0);
        run.advance(Duration.ofSeconds(5));
        Decision byWindow = run.acquire(1);
        assertThat(byWindow.policy()).isEqualTo(Policy.fixedWindow(3, Duration.ofHours(1)));
        assertDecision(byWindow, Verdict.REJECTED, 0, 1_794_000_000, 1_794_000_000);
        assertThat(run.acquire(5).verdict()).isEqualTo(Verdict.COST_EXCEEDS_LIMIT);
        run.advance(Duration.ofMinutes(30));
        assertDecision(run.acquire(2), Verdict.ALLOWED, 0, 2_000_000, 0);
    }

    @Test
    void tokenBucketRetryAfterHoldsWhenTheClockWentBack() {
        Run run = run(Policy.tokenBucket(2, 1, Duration.ofSeconds(1)));
        run.acquire(2);
        run.advance(Duration.ofSeconds(-5));
        // no refill until the clock is back where it was (5 s), then one token takes 1 s
        assertDecision(run.acquire(1), Verdict.REJECTED, 0, 7_000_000, 6_000_000);
        run.advance(Duration.ofNanos(5_999_999_000L));
        assertDecision(run.acquire(1), Verdict.REJECTED, 0, 1_000_001, 1);
        run.advance(Duration.ofNanos(1_000));
        assertDecision(run.acquire(1), Verdict.ALLOWED, 0, 2_000_000, 0);
    }

    // The token bucket stands still when the clock goes back (above). GCRA keeps only the
    // theoretical arrival time and the sliding window counter only its windows, so they measure the
    // backlog from the earlier time: stricter, never looser, and the retry hint still holds.

    @Test
    void gcraIsStricterWhileTheClockIsBehindAndSaysForHowLong() {
        Run gcra = run(Policy.gcra(1, Duration.ofSeconds(1), 10));
        gcra.acquire(1);
        gcra.advance(Duration.ofSeconds(-5));
        // 6 s of backlog seen from 5 s earlier: 4 left where a clock that stood still would leave 9
        assertDecision(gcra.acquire(5), Verdict.REJECTED, 4, 6_000_000, 1_000_000);
        gcra.advance(Duration.ofSeconds(1));
        assertDecision(gcra.acquire(5), Verdict.ALLOWED, 0, 10_000_000, 0);
    }

    @Test
    void theSlidingWindowCounterIsStricterWhileTheClockIsBehindAndSaysForHowLong() {
        Run counter = run(Policy.slidingWindowCounter(10, Duration.ofSeconds(10)));
        counter.advance(Duration.ofSeconds(1)).acquire(10);
        assertThat(counter.advance(Duration.ofSeconds(14)).acquire(1).remaining()).isEqualTo(4);
        // back to 11 s: the previous window weighs 9 again, where a clock that stood still would weigh 5
        Decision behind = counter.advance(Duration.ofSeconds(-4)).acquire(1);
        assertThat(behind.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(behind.remaining()).isZero();
        assertThat(behind.retryAfterMicros()).isEqualTo(1_000_000);
        assertThat(counter.advance(Duration.ofSeconds(1)).acquire(1).verdict()).isEqualTo(Verdict.ALLOWED);
    }

    @Test
    void gcraRefundsNothingWhenTheClockGoesBackHours() {
        // ~1e9 per second, a prime rate: TAT is kept in units of 1/999,999,937 µs
        Run run = run(Policy.gcra(999_999_937L, Duration.ofSeconds(1), 1000));
        assertThat(run.acquire(1000).verdict()).isEqualTo(Verdict.ALLOWED);
        run.advance(Duration.ofHours(-3));
        // (TAT - now) * n is about 1e19 units: it must not wrap around into a fresh burst
        assertDecision(run.acquire(1), Verdict.REJECTED, 0, 10_800_000_002L, 10_800_000_001L);
        assertThat(run.acquire(1000).verdict()).isEqualTo(Verdict.REJECTED);
        run.advance(Duration.ofNanos(10_800_000_001_000L));
        assertThat(run.acquire(1).verdict()).isEqualTo(Verdict.ALLOWED);
    }

    @Test
    void countsNearTwoToThe53StayExact() {
        long max = (1L << 53) - 1;
        // fixed window of 2^53 - 1: 2 + (2^53 - 1) is not a double, and must not round down to the limit
        Run window = run(Policy.fixedWindow(max, Duration.ofSeconds(1)));
        window.acquire(2);
        assertThat(window.acquire(max).verdict()).isEqualTo(Verdict.REJECTED);
        Run counter = run(Policy.slidingWindowCounter(max, Duration.ofNanos(1_000)));
        counter.acquire(2);
        assertThat(counter.acquire(max).verdict()).isEqualTo(Verdict.REJECTED);
        // token bucket and GCRA of 2^53 - 1 units, 2 per µs: 2 missing + (2^53 - 1) asked is odd above 2^53
        Run bucket = run(Policy.tokenBucket(max, 2, Duration.ofNanos(1_000)));
        bucket.acquire(2);
        assertThat(bucket.acquire(max).retryAfterMicros()).isEqualTo(1);
        Run gcra = run(Policy.gcra(2, Duration.ofNanos(1_000), max));
        gcra.acquire(2);
        assertThat(gcra.acquire(max).retryAfterMicros()).isEqualTo(1);
        // a state at exactly 2^53 would read as fresh in Lua: full, each still refuses the next request
        window.advance(Duration.ofSeconds(1));
        assertThat(window.acquire(max).verdict()).isEqualTo(Verdict.ALLOWED);
        assertThat(window.acquire(1).verdict()).isEqualTo(Verdict.REJECTED);
        // 2^53 + 1 is the double 2^53: still above the limit
        assertThat(window.acquire(max + 2).verdict()).isEqualTo(Verdict.COST_EXCEEDS_LIMIT);
    }

    @Test
    void aCompositeRejectionNeverPromisesMoreThanItsTightestPolicyLets() {
        // 10 an hour and a bucket of 7: after 7, the hour has 3 left but the bucket none
        Run run = run(Policy.fixedWindow(10, Duration.ofHours(1)), Policy.tokenBucket(7, 1, Duration.ofSeconds(1)));
        run.acquire(7);
        Decision heavy = run.acquire(5);
        assertThat(heavy.policy()).as("the policy with the longest wait").isEqualTo(Policy.fixedWindow(10, Duration.ofHours(1)));
        assertThat(heavy.remaining()).as("remaining").isZero();
        assertThat(run.acquire(1).verdict()).isEqualTo(Verdict.REJECTED);
        Decision never = run.acquire(8);
        assertThat(never.verdict()).isEqualTo(Verdict.COST_EXCEEDS_LIMIT);
        assertThat(never.remaining()).as("remaining").isZero();
    }

    @Test
    void aRejectedFirstRequestLeavesTheClientFresh() {
        Run run = run(Policy.slidingWindowLog(2, Duration.ofSeconds(1)), Policy.gcra(5, Duration.ofSeconds(1), 5));
        assertThat(run.acquire(3).verdict()).isEqualTo(Verdict.COST_EXCEEDS_LIMIT);
        assertDecision(run.acquire(2), Verdict.ALLOWED, 0, 1_000_000, 0);
    }

    @Test
    void aNullKeyIsAnIllegalArgumentNamingTheKey() {
        RateLimiter limiter = store.limiter(Limit.of("nullkey", Policy.fixedWindow(5, Duration.ofSeconds(1))));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> limiter.tryAcquire(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key");
    }
}
