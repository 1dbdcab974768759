package dev.ratelimit.store.memory;

import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.TokenBucket;
import dev.ratelimit.algorithm.LimitEvaluator;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static dev.ratelimit.Fixtures.clock;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which entry a full shard drops for a new key, on a table laid out by hand: hashes pick each key's
 * slot (bits 8 and up), and the sweep cursor's path follows from the inserts (see the comments).
 */
class ShardEvictionTest {
    private final ManualClock clock = clock();

    /** A key whose home slot is {@code slot}; {@code id} tells keys with the same slot apart. */
    private static long key(int id, int slot) {
        return ((long) (id + 1) << 40) | ((long) slot << 8);
    }

    @Test
    void aFullShardDropsAnEntryThatIsFreshAgainBeforeASpentClientItSeesLessOften() {
        // 26 keys: the table grows to 64 slots at the 25th insert, which resets the cursor to 0; the
        // 26th insert's sweep moves it to 2. Spent clients at slots 0-15 and 36-44, one client at 45
        // whose bucket will be full again. The next insert sweeps slots 2-35 (nothing fresh there)
        // and samples the 16 entries from slot 36: the spent clients and the one at 45.
        Shard shard = new Shard(new LimitEvaluator(Limit.of("l", TokenBucket.perSecond(10, 1))), clock, 26);
        int[] spentSlots = new int[25];
        for (int i = 0; i < 16; i++) {
            spentSlots[i] = i;
        }
        for (int i = 0; i < 9; i++) {
            spentSlots[16 + i] = 36 + i;
        }
        for (int i = 0; i < spentSlots.length; i++) {
            assertThat(shard.decide(key(i, spentSlots[i]), 5).allowed()).isTrue();
        }
        long light = key(99, 45);
        assertThat(shard.decide(light, 1).allowed()).isTrue();
        // Seen twice, each spent: 10 s until full again. The light client, seen three times, spent 3.
        for (int i = 0; i < spentSlots.length; i++) {
            assertThat(shard.decide(key(i, spentSlots[i]), 5).allowed()).isTrue();
        }
        shard.decide(light, 1);
        shard.decide(light, 1);

        clock.advance(Duration.ofSeconds(5)); // the light client's bucket is full, the others hold 5 of 10
        assertThat(shard.decide(key(500, 60), 1).allowed()).isTrue();

        assertThat(shard.size()).isEqualTo(26);
        assertThat(shard.tracks(light)).as("the entry that was fresh again is the one dropped").isFalse();
        for (int i = 0; i < spentSlots.length; i++) {
            assertThat(shard.decide(key(i, spentSlots[i]), 10).allowed()).as("spent client at slot %d keeps its state", spentSlots[i]).isFalse();
        }
    }
}
