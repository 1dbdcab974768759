package dev.ratelimit.algorithms;

import dev.ratelimit.Decision;
import dev.ratelimit.Fixtures;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Verdict;
import dev.ratelimit.store.memory.MemoryStore;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.List;

import static dev.ratelimit.Fixtures.clock;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random policies and composites of them, random traffic with the clock stepping back now and then:
 * every rejection's retryAfter is exact (1 µs early is still refused, on time passes), and every
 * decision's remaining is exactly how many unit-cost requests pass right after it.
 */
class HonestDecisionProperties {

    record Step(long advanceMicros, long cost, boolean check) {
    }

    @Provide
    Arbitrary<Policy> policy() {
        return Fixtures.anyPolicy(6, 3_000_000);
    }

    @Provide
    Arbitrary<List<Step>> traffic() {
        Arbitrary<Long> advance = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(4, Arbitraries.just(0L)),
                net.jqwik.api.Tuple.of(4, Arbitraries.longs().between(1, 2_000)),
                net.jqwik.api.Tuple.of(4, Arbitraries.longs().between(2_000, 2_000_000)),
                net.jqwik.api.Tuple.of(1, Arbitraries.longs().between(-2_000, -1)),
                net.jqwik.api.Tuple.of(1, Arbitraries.longs().between(-5_000_000, -2_000)));
        Arbitrary<Long> cost = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(6, Arbitraries.just(1L)),
                net.jqwik.api.Tuple.of(3, Arbitraries.longs().between(2, 7)));
        return Combinators.combine(advance, cost, Arbitraries.of(true, false))
                .as(Step::new).list().ofMinSize(1).ofMaxSize(60);
    }

    @Property(tries = 300, edgeCases = EdgeCasesMode.MIXIN)
    void retryAfterAndRemainingAreExact(@ForAll("policy") Policy first, @ForAll("policy") Policy second,
                                        @ForAll boolean composite, @ForAll("traffic") List<Step> steps) {
        Limit limit = composite ? Limit.of("p", first, second) : Limit.of("p", first);
        ManualClock clock = clock();
        RateLimiter limiter = MemoryStore.builder().clock(clock).build().limiter(limit);
        for (Step step : steps) {
            clock.advanceMicros(step.advanceMicros());
            Decision d = limiter.tryAcquire("k", step.cost());
            if (d.verdict() == Verdict.REJECTED && step.check()) {
                assertThat(d.retryAfterMicros()).as("%s", d).isPositive();
                clock.advanceMicros(d.retryAfterMicros() - 1);
                assertThat(limiter.tryAcquire("k", step.cost()).allowed()).as("%s: 1 µs early after %s", limit, d).isFalse();
                clock.advanceMicros(1);
                assertThat(limiter.tryAcquire("k", step.cost()).allowed()).as("%s: on time after %s", limit, d).isTrue();
            } else if (step.check()) {
                for (long i = 0; i < d.remaining(); i++) {
                    assertThat(limiter.tryAcquire("k").allowed()).as("%s: %d of remaining %s", limit, i + 1, d).isTrue();
                }
                assertThat(limiter.tryAcquire("k").allowed()).as("%s: one past remaining %s", limit, d).isFalse();
            }
        }
    }
}
