package dev.ratelimit.store.memory;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.algorithm.LimitEvaluator;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static dev.ratelimit.Fixtures.clock;
import static org.assertj.core.api.Assertions.assertThat;

/** A shard's table doubling under keys that already have state: every key keeps its own. */
class ShardGrowthTest {
    private final ManualClock clock = clock();

    /** A key whose home slot is {@code slot}; {@code id} tells keys with the same slot apart. */
    private static long key(int id, int slot) {
        return ((long) (id + 1) << 40) | ((long) slot << 8);
    }

    @Test
    void aKeyWithTwoSlidingLogsKeepsBothOfItsOwnLogsWhenTheTableGrows() {
        // Two logs per slot: growing moves slot i's pair of logs, not the pair at some other index.
        // Keys at slots 0-5 of the first 8-slot table log 1, 2 or 3 requests at instants of their
        // own; the 7th key grows the table to 16 slots.
        Limit limit = Limit.of("l", Policy.slidingWindowLog(3, Duration.ofMinutes(1)), Policy.slidingWindowLog(5, Duration.ofHours(1)));
        LimitEvaluator evaluator = new LimitEvaluator(limit);
        Shard shard = new Shard(evaluator, clock, 20);
        long[][] states = new long[7][evaluator.words()];
        Object[][] logs = new Object[7][evaluator.logs()];
        for (int i = 0; i < 6; i++) {
            for (int n = 0; n <= i % 3; n++) {
                clock.advance(Duration.ofSeconds(1 + i));
                Decision expected = evaluator.decide(states[i], 0, logs[i], 0, clock.nowMicros(), 1);
                assertThat(shard.decide(key(i, i), 1)).isEqualTo(expected);
            }
        }
        clock.advance(Duration.ofSeconds(1));
        evaluator.decide(states[6], 0, logs[6], 0, clock.nowMicros(), 1);
        shard.decide(key(6, 6), 1);

        clock.advance(Duration.ofSeconds(1));
        for (int i = 0; i < 7; i++) {
            Decision expected = evaluator.decide(states[i], 0, logs[i], 0, clock.nowMicros(), 1);
            assertThat(shard.decide(key(i, i), 1)).as("key at slot %d", i).isEqualTo(expected);
        }
        assertThat(shard.decide(key(2, 2), 1).allowed()).as("the key that logged 3 requests in the minute").isFalse();
    }
}
