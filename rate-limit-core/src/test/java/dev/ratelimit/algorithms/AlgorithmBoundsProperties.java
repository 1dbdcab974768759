package dev.ratelimit.algorithms;

import dev.ratelimit.Decision;
import dev.ratelimit.Durations;
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

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static dev.ratelimit.Fixtures.clock;
import static org.assertj.core.api.Assertions.assertThat;

/** Over random traffic, every algorithm stays within its documented bound, and every retryAfter is exact. */
class AlgorithmBoundsProperties {

    record Step(long advanceMicros, long cost) {
    }

    record Admitted(long at, long cost) {
    }

    @Provide
    Arbitrary<List<Step>> traffic() {
        Arbitrary<Long> advance = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(5, Arbitraries.just(0L)),
                net.jqwik.api.Tuple.of(5, Arbitraries.longs().between(1, 1_000)),
                net.jqwik.api.Tuple.of(5, Arbitraries.longs().between(1_000, 400_000)),
                net.jqwik.api.Tuple.of(1, Arbitraries.longs().between(400_000, 5_000_000)));
        Arbitrary<Long> cost = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(8, Arbitraries.just(1L)),
                net.jqwik.api.Tuple.of(2, Arbitraries.longs().between(2, 4)));
        return Combinators.combine(advance, cost).as(Step::new).list().ofMinSize(1).ofMaxSize(300);
    }

    private static List<Admitted> run(Policy policy, List<Step> steps) {
        ManualClock clock = clock();
        RateLimiter limiter = MemoryStore.builder().clock(clock).build().limiter(Limit.of("p", policy));
        List<Admitted> admitted = new ArrayList<>();
        for (Step step : steps) {
            clock.advanceMicros(step.advanceMicros());
            Decision d = limiter.tryAcquire("k", step.cost());
            if (d.allowed()) {
                admitted.add(new Admitted(clock.nowMicros(), step.cost()));
            }
        }
        return admitted;
    }

    /** Units admitted at instants in [from, to]. */
    private static long admittedBetween(List<Admitted> admitted, long from, long to) {
        return admitted.stream().filter(a -> a.at() >= from && a.at() <= to).mapToLong(Admitted::cost).sum();
    }

    @Property(tries = 200)
    void tokenBucketAdmitsAtMostCapacityPlusRateTimesT(@ForAll("traffic") List<Step> steps) {
        TokenBucket bucket = new TokenBucket(5, 3, Duration.ofSeconds(1));
        List<Admitted> admitted = run(bucket, steps);
        for (Admitted a : admitted) {
            for (Admitted b : admitted) {
                if (b.at() >= a.at()) {
                    long t = b.at() - a.at();
                    // capacity + rate * T, in exact units: 5 + 3 * T / 1 s
                    assertThat(admittedBetween(admitted, a.at(), b.at()) * 1_000_000L).isLessThanOrEqualTo(5 * 1_000_000L + 3 * t);
                }
            }
        }
    }

    @Property(tries = 200)
    void gcraAdmitsAtMostBurstPlusRateTimesT(@ForAll("traffic") List<Step> steps) {
        List<Admitted> admitted = run(Policy.gcra(3, Duration.ofSeconds(1), 5), steps);
        for (Admitted a : admitted) {
            for (Admitted b : admitted) {
                if (b.at() >= a.at()) {
                    assertThat(admittedBetween(admitted, a.at(), b.at()) * 1_000_000L).isLessThanOrEqualTo(5 * 1_000_000L + 3 * (b.at() - a.at()));
                }
            }
        }
    }

    @Property(tries = 200)
    void fixedWindowAdmitsAtMostTheLimitPerWindow(@ForAll("traffic") List<Step> steps) {
        long w = 1_000_000;
        List<Admitted> admitted = run(Policy.fixedWindow(4, Duration.ofSeconds(1)), steps);
        for (Admitted a : admitted) {
            long start = a.at() - Math.floorMod(a.at(), w);
            assertThat(admittedBetween(admitted, start, start + w - 1)).isLessThanOrEqualTo(4);
        }
    }

    @Property(tries = 200)
    void slidingLogAdmitsAtMostTheLimitInAnyWindow(@ForAll("traffic") List<Step> steps) {
        long w = 1_000_000;
        List<Admitted> admitted = run(Policy.slidingWindowLog(4, Duration.ofSeconds(1)), steps);
        for (Admitted a : admitted) {
            assertThat(admittedBetween(admitted, a.at(), a.at() + w - 1)).isLessThanOrEqualTo(4);
        }
    }

    @Property(tries = 200)
    void slidingCounterStaysWithinItsDocumentedBound(@ForAll("traffic") List<Step> steps) {
        long w = 1_000_000;
        long limit = 4;
        List<Admitted> admitted = run(Policy.slidingWindowCounter(limit, Duration.ofSeconds(1)), steps);
        for (Admitted a : admitted) {
            long start = a.at() - Math.floorMod(a.at(), w);
            assertThat(admittedBetween(admitted, start, start + w - 1)).as("epoch-aligned window").isLessThanOrEqualTo(limit);
            assertThat(admittedBetween(admitted, a.at(), a.at() + w - 1)).as("any window").isLessThan(2 * limit);
        }
    }

    @Property(tries = 100)
    void everyRetryAfterIsExact(@ForAll("traffic") List<Step> steps) {
        List<Policy> policies = List.of(new TokenBucket(5, 3, Duration.ofSeconds(1)), Policy.fixedWindow(4, Duration.ofSeconds(1)),
                Policy.slidingWindowLog(4, Duration.ofSeconds(1)), Policy.slidingWindowCounter(4, Duration.ofSeconds(1)),
                Policy.gcra(3, Duration.ofSeconds(1), 5));
        for (Policy policy : policies) {
            ManualClock clock = clock();
            RateLimiter limiter = MemoryStore.builder().clock(clock).build().limiter(Limit.of("p", policy));
            for (Step step : steps) {
                clock.advanceMicros(step.advanceMicros());
                Decision d = limiter.tryAcquire("k", step.cost());
                if (d.verdict() == Verdict.REJECTED) {
                    assertThat(d.retryAfterMicros()).as(policy.algorithm()).isPositive();
                    clock.advanceMicros(d.retryAfterMicros() - 1);
                    assertThat(limiter.tryAcquire("k", step.cost()).allowed()).as(policy.algorithm() + ": 1 µs early").isFalse();
                    clock.advanceMicros(1);
                    assertThat(limiter.tryAcquire("k", step.cost()).allowed()).as(policy.algorithm() + ": on time").isTrue();
                }
            }
        }
    }

    @Property(tries = 100)
    void remainingMeansThatManyUnitRequestsPassNow(@ForAll("traffic") List<Step> steps) {
        List<Policy> policies = List.of(new TokenBucket(5, 3, Duration.ofSeconds(1)), Policy.fixedWindow(4, Duration.ofSeconds(1)),
                Policy.slidingWindowLog(4, Duration.ofSeconds(1)), Policy.slidingWindowCounter(4, Duration.ofSeconds(1)),
                Policy.gcra(3, Duration.ofSeconds(1), 5));
        for (Policy policy : policies) {
            ManualClock clock = clock();
            MemoryStore store = MemoryStore.builder().clock(clock).build();
            RateLimiter limiter = store.limiter(Limit.of("p", policy));
            for (Step step : steps) {
                clock.advanceMicros(step.advanceMicros());
                limiter.tryAcquire("k", step.cost());
            }
            Decision last = limiter.tryAcquire("k", 1);
            long remaining = last.allowed() ? last.remaining() : 0;
            for (long i = 0; i < remaining; i++) {
                assertThat(limiter.tryAcquire("k").allowed()).as(policy.algorithm()).isTrue();
            }
            assertThat(limiter.tryAcquire("k").allowed()).as(policy.algorithm() + " after remaining ran out").isFalse();
            assertThat(Durations.toMicros(policy.window())).isPositive();
        }
    }
}
