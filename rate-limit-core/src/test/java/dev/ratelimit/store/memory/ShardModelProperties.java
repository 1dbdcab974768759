package dev.ratelimit.store.memory;

import dev.ratelimit.Decision;
import dev.ratelimit.Fixtures;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.algorithm.LimitEvaluator;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static dev.ratelimit.Fixtures.clock;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A shard against a reference model: every key's state run by the same {@link LimitEvaluator} in
 * its own arrays, never forgotten. Hashes are chosen so that probe runs collide and wrap around the
 * end of the table at every size it grows to; the clock only moves forward.
 */
class ShardModelProperties {
    private static final int KEYS = 40;
    /** Steps with this key run {@link Shard#sweepAll()} instead of a decision. */
    private static final int SWEEP_ALL = -1;

    record Step(int key, long advanceMicros, long cost) {
    }

    @Provide
    Arbitrary<Policy> policy() {
        return Fixtures.anyPolicy(5, 3_000);
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<Long> advance = Arbitraries.frequencyOf(
                Tuple.of(5, Arbitraries.just(0L)),
                Tuple.of(5, Arbitraries.longs().between(1, 500)),
                Tuple.of(2, Arbitraries.longs().between(500, 5_000)));
        Arbitrary<Long> cost = Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.just(1L)),
                Tuple.of(2, Arbitraries.longs().between(2, 7)));
        // A few regulars come back often (their hits age the use counters), the rest pass by.
        Arbitrary<Integer> key = Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.integers().between(0, 3)),
                Tuple.of(6, Arbitraries.integers().between(0, KEYS - 1)),
                Tuple.of(1, Arbitraries.just(SWEEP_ALL)));
        return Combinators.combine(key, advance, cost)
                .as(Step::new).list().ofMaxSize(200);
    }

    /** Key {@code k}'s hash; bits 40 and up tell keys apart, bits 8 and up pick the home slot. */
    private static long hash(int k, int layout) {
        return switch (layout) {
            case 0 -> ((long) (k + 1) << 40) | (0xFFFFFFFFL << 8); // all at the last slot: one run wrapping the end
            case 1 -> ((long) (k + 1) << 40) | ((0xFFFFFFFFL - k % 4) << 8); // a few runs near the end, interleaved
            case 2 -> ((long) (k + 1) << 40) | ((long) (5 + k % 3) << 8) | (k * 37L & 0xFF); // low bits (the counter's) set
            default -> new Random(k * 31L + layout).nextLong();
        };
    }

    @Property(tries = 500)
    void belowTheCapEveryKeyKeepsExactlyItsOwnState(@ForAll("policy") Policy first, @ForAll("policy") Policy second,
                                                    @ForAll boolean composite, @ForAll("steps") List<Step> steps,
                                                    @ForAll @IntRange(min = 0, max = 4) int layout,
                                                    @ForAll @IntRange(min = KEYS, max = KEYS + 8) int cap) {
        Model model = new Model(composite ? Limit.of("p", first, second) : Limit.of("p", first));
        ManualClock clock = clock();
        Shard shard = new Shard(model.evaluator, clock, cap);
        for (int i = 0; i < steps.size(); i++) {
            Step step = steps.get(i);
            clock.advanceMicros(step.advanceMicros());
            long now = clock.nowMicros();
            if (step.key() == SWEEP_ALL) {
                shard.sweepAll();
                assertThat((long) shard.size()).as("step %d: after sweepAll", i).isEqualTo(model.liveKeys(now));
                continue;
            }
            Decision expected = model.decide(step.key(), now, step.cost());
            assertThat(shard.decide(hash(step.key(), layout), step.cost())).as("step %d: %s", i, step).isEqualTo(expected);
            assertThat((long) shard.size()).as("step %d: size", i).isBetween(model.liveKeys(now), (long) model.keys());
        }
    }

    @Property(tries = 500)
    void atTheCapOnlyFreshEntriesOrOneOtherKeyLeave(@ForAll("policy") Policy first, @ForAll("policy") Policy second,
                                                   @ForAll boolean composite, @ForAll("steps") List<Step> steps,
                                                   @ForAll @IntRange(min = 0, max = 4) int layout,
                                                   @ForAll @IntRange(min = 1, max = 24) int cap) {
        Model model = new Model(composite ? Limit.of("p", first, second) : Limit.of("p", first));
        ManualClock clock = clock();
        Shard shard = new Shard(model.evaluator, clock, cap);
        for (int i = 0; i < steps.size(); i++) {
            Step step = steps.get(i);
            clock.advanceMicros(step.advanceMicros());
            long now = clock.nowMicros();
            Set<Integer> before = present(shard, layout);
            assertThat(before).as("step %d: tracked keys", i).hasSize(shard.size());
            if (step.key() == SWEEP_ALL) {
                shard.sweepAll();
            } else {
                if (!before.contains(step.key())) {
                    model.forget(step.key()); // evicted earlier (or fresh): the shard starts it over
                }
                Decision expected = model.decide(step.key(), now, step.cost());
                assertThat(shard.decide(hash(step.key(), layout), step.cost())).as("step %d: %s", i, step).isEqualTo(expected);
            }
            Set<Integer> after = present(shard, layout);
            assertThat(after).as("step %d: tracked keys", i).hasSize(shard.size());
            assertThat(shard.size()).as("step %d: cap", i).isLessThanOrEqualTo(cap);
            int evicted = 0;
            for (int k : before) {
                if (!after.contains(k) && !model.isFresh(k, now)) {
                    evicted++;
                    assertThat(k).as("step %d: evicted the key being decided", i).isNotEqualTo(step.key());
                }
            }
            if (evicted > 0) {
                assertThat(step.key()).as("step %d: eviction outside an insert", i).isNotEqualTo(SWEEP_ALL);
                assertThat(before).as("step %d: eviction outside an insert", i).doesNotContain(step.key());
                assertThat(before).as("step %d: eviction below the cap", i).hasSize(cap);
                assertThat(evicted).as("step %d: evictions for one insert", i).isEqualTo(1);
            }
            if (step.key() != SWEEP_ALL && !after.contains(step.key())) {
                assertThat(model.isFresh(step.key(), now)).as("step %d: dropped the decided key with state", i).isTrue();
            }
        }
    }

    /** Keys 0..KEYS-1 the shard tracks, looked up in its table. */
    private static Set<Integer> present(Shard shard, int layout) {
        Set<Integer> present = new HashSet<>();
        for (int k = 0; k < KEYS; k++) {
            if (shard.tracks(hash(k, layout))) {
                present.add(k);
            }
        }
        return present;
    }

    /** Each key's state in arrays of its own, never forgotten unless told. */
    private static final class Model {
        private final LimitEvaluator evaluator;
        private final Map<Integer, long[]> states = new HashMap<>();
        private final Map<Integer, Object[]> logs = new HashMap<>();

        Model(Limit limit) {
            this.evaluator = new LimitEvaluator(limit);
        }

        Decision decide(int key, long now, long cost) {
            long[] s = states.computeIfAbsent(key, k -> new long[evaluator.words()]);
            Object[] l = logs.computeIfAbsent(key, k -> new Object[evaluator.logs()]);
            return evaluator.decide(s, 0, l, 0, now, cost);
        }

        void forget(int key) {
            states.remove(key);
            logs.remove(key);
        }

        boolean isFresh(int key, long now) {
            return !states.containsKey(key) || evaluator.forgetAtMicros(states.get(key), 0, logs.get(key), 0) <= now;
        }

        long liveKeys(long now) {
            return states.keySet().stream().filter(k -> !isFresh(k, now)).count();
        }

        int keys() {
            return states.size();
        }
    }
}
