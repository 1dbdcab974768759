package dev.ratelimit.store.memory;

import dev.ratelimit.Decision;
import dev.ratelimit.FixedWindow;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.TokenBucket;
import dev.ratelimit.algorithm.LimitEvaluator;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import static dev.ratelimit.Fixtures.clock;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

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
        // 26 keys: the table grows to 64 slots at the 25th insert, which resets the sweep cursor to 0;
        // the 26th insert's sweep moves it to 2. Spent clients at slots 0-9, light ones at 36-51 whose
        // buckets will be full again. The next insert sweeps slots 2-35 (nothing fresh there), then
        // evicts from a sample drawn from the whole table.
        LongAdder evicted = new LongAdder();
        Shard shard = new Shard(new LimitEvaluator(Limit.of("l", TokenBucket.perSecond(10, 1))), clock, 26, 26,
                new AtomicInteger(), evicted);
        for (int i = 0; i < 10; i++) {
            assertThat(shard.decide(key(i, i), 5).allowed()).isTrue();
        }
        for (int i = 0; i < 16; i++) {
            assertThat(shard.decide(key(100 + i, 36 + i), 1).allowed()).isTrue();
        }
        // Spent clients: seen twice, 10 s until full again. Light ones: seen three times, 3 tokens spent.
        for (int i = 0; i < 10; i++) {
            assertThat(shard.decide(key(i, i), 5).allowed()).isTrue();
        }
        for (int i = 0; i < 16; i++) {
            shard.decide(key(100 + i, 36 + i), 1);
            shard.decide(key(100 + i, 36 + i), 1);
        }

        clock.advance(Duration.ofSeconds(5)); // the light buckets are full, the spent ones hold 5 of 10
        assertThat(shard.decide(key(500, 60), 1).allowed()).isTrue();

        assertThat(shard.size()).isEqualTo(26);
        long lightLeft = java.util.stream.IntStream.range(0, 16).filter(i -> shard.tracks(key(100 + i, 36 + i))).count();
        assertThat(lightLeft).as("one entry that was fresh again is the one dropped").isEqualTo(15);
        assertThat(evicted.sum()).as("forgetting a fresh state is no eviction").isZero();
        for (int i = 0; i < 10; i++) {
            assertThat(shard.decide(key(i, i), 10).allowed()).as("spent client at slot %d keeps its state", i).isFalse();
        }
    }

    @Test
    void agingTheUseCountersLeavesEveryClientsStateAsItWas() {
        // A shard of 1 halves its use counters after every 8 allowed returning requests; only the
        // counters (each slot's first word) may change, never a state word: a window's count halved
        // would hand the client back half of what it spent.
        Shard shard = new Shard(new LimitEvaluator(Limit.of("l", new FixedWindow(100, Duration.ofHours(1)))), clock, 1);
        for (int i = 1; i <= 20; i++) {
            assertThat(shard.decide(key(0, 0), 1).remaining()).as("request %d", i).isEqualTo(100 - i);
        }
        Decision next = shard.decide(key(0, 0), 1);
        assertThat(next.remaining()).isEqualTo(79);
        assertThat(next.resetAfterMicros()).isEqualTo(Duration.ofHours(1).toNanos() / 1_000);
    }

    @Test
    void aShardOfFewEntriesAlwaysFindsItsLeastUsed() {
        // 9 spent clients seen twice and room for one more: each new key evicts the previous new one.
        // Sixteen draws with replacement from 10 entries miss a given one about one time in five.
        Shard shard = new Shard(new LimitEvaluator(Limit.of("l", TokenBucket.perSecond(10, 1))), clock, 10);
        for (int i = 0; i < 9; i++) {
            shard.decide(key(i, i), 5);
            shard.decide(key(i, i), 5);
        }
        for (int n = 0; n < 50; n++) {
            assertThat(shard.decide(key(1000 + n, 20 + n % 10), 1).allowed()).isTrue();
        }
        for (int i = 0; i < 9; i++) {
            assertThat(shard.tracks(key(i, i))).as("spent client %d", i).isTrue();
        }
        assertThat(shard.size()).isEqualTo(10);
    }

    @Test
    void tiesAmongTheLeastUsedFallOnNoSlotInParticular() {
        // A client at slot 0 comes back while two new keys arrive each time, in a shard of 10 full of
        // keys seen once. Its bucket of 10 is never refilled (the clock stands still), so it may pass
        // 10 times, plus once each time it was evicted and came back fresh. Ties used to go to the
        // lowest slot: it was evicted before every return and passed all 50 times.
        Shard shard = new Shard(new LimitEvaluator(Limit.of("l", TokenBucket.perSecond(10, 1))), clock, 10);
        for (int i = 0; i < 10; i++) {
            shard.decide(key(500 + i, 1 + i % 9), 1);
        }
        long returning = key(0, 0);
        int passed = 0;
        for (int n = 0; n < 50; n++) {
            if (shard.decide(returning, 1).allowed()) {
                passed++;
            }
            shard.decide(key(1000 + 2 * n, 1 + (2 * n) % 9), 1);
            shard.decide(key(1001 + 2 * n, 1 + (2 * n + 1) % 9), 1);
        }
        assertThat(passed).as("requests of the returning client that passed").isLessThanOrEqualTo(15);
    }

    @Test
    void aKeyUsedHeavilyLongAgoIsEvictedBeforeOneUsedModeratelySince() {
        // A shard of 2 halves its use counters after every 16 allowed returning requests. A came back
        // 40 times, then B 24 times while A stayed away: the halvings in B's time took A from 20 down
        // to 5 while B climbed to 10 (never halved, A would still count 41 and B 25).
        Shard shard = new Shard(new LimitEvaluator(Limit.of("l", new FixedWindow(1_000, Duration.ofHours(1)))), clock, 2);
        long a = key(0, 0);
        long b = key(1, 1);
        for (int i = 0; i < 41; i++) {
            shard.decide(a, 1);
        }
        for (int i = 0; i < 25; i++) {
            shard.decide(b, 1);
        }

        assertThat(shard.decide(key(2, 2), 1).allowed()).isTrue(); // the shard is full: one of A and B goes

        assertThat(shard.decide(b, 1).remaining()).as("B keeps its window: its 26th request").isEqualTo(974);
        assertThat(shard.decide(a, 1).remaining()).as("A was evicted and starts over").isEqualTo(999);
    }

    @Test
    void theUseCountersAreHalvedOnTheEighthAllowedReturningRequestPerKeyOfTheShare() {
        // A shard of 2: the 16th allowed returning request halves every counter. A is seen 16 times
        // (counter 16), then B arrives; B's first return is the 16th: A drops to 8, B (2) to 1, and
        // B's 8 more returns take it to 9, one over A. Halved one request later, A would be 8 and B
        // 8, and the tie would go to B, the first entry the new key's scan meets (its home is B's slot).
        Shard shard = new Shard(new LimitEvaluator(Limit.of("l", new FixedWindow(1_000, Duration.ofHours(1)))), clock, 2);
        long a = key(0, 0);
        long b = key(1, 1);
        for (int i = 0; i < 16; i++) {
            shard.decide(a, 1);
        }
        for (int i = 0; i < 10; i++) {
            shard.decide(b, 1);
        }

        assertThat(shard.decide(key(2, 1), 1).allowed()).isTrue(); // the shard is full: one of A and B goes

        assertThat(shard.decide(b, 1).remaining()).as("B, used once more than A since the halving, keeps its window").isEqualTo(989);
        assertThat(shard.decide(a, 1).remaining()).as("A was evicted and starts over").isEqualTo(999);
    }

    @Test
    void aClientIsNotEvictedWhenTheSweepAtTheCapMadeRoom() {
        // 9 spent clients at slots 0-8 (5 s to a full bucket) and a light one at slot 12 (1 s). The
        // table grows to 16 slots at the 7th insert (sweep cursor back to 0); the 8th to 10th inserts
        // sweep slots 0-5, the 11th slots 6-7: nothing fresh on that path. At the cap, the longer
        // sweep reaches slot 12, whose bucket is full again: that entry makes the room.
        Shard shard = new Shard(new LimitEvaluator(Limit.of("l", TokenBucket.perSecond(10, 1))), clock, 10);
        for (int i = 0; i < 9; i++) {
            assertThat(shard.decide(key(i, i), 5).allowed()).isTrue();
        }
        long light = key(100, 12);
        assertThat(shard.decide(light, 1).allowed()).isTrue();

        clock.advance(Duration.ofSeconds(2));
        assertThat(shard.decide(key(200, 14), 1).allowed()).isTrue();

        assertThat(shard.size()).isEqualTo(10);
        assertThat(shard.tracks(light)).as("the entry fresh again was dropped").isFalse();
        for (int i = 0; i < 9; i++) {
            assertThat(shard.decide(key(i, i), 10).allowed()).as("spent client at slot %d keeps its state", i).isFalse();
        }
    }

    @Test
    void eachNewKeySweepsTwoSlotsFromWhereTheLastSweepStopped() {
        // Inserts at slots 4, 5 and 2: the second sweeps slots 0-1, the third 2-3 (slot 2 still empty),
        // so the cursor stands at 4. Once the light buckets at 4 and 5 are full again, the next insert
        // drops slot 4's entry and visits the slot it left empty: its two slots; slot 5 waits.
        Shard shard = new Shard(new LimitEvaluator(Limit.of("l", TokenBucket.perSecond(10, 1))), clock, 20);
        long atFour = key(0, 4);
        long atFive = key(1, 5);
        shard.decide(atFour, 1);
        shard.decide(atFive, 1);
        shard.decide(key(2, 2), 5); // spent for 5 s

        clock.advance(Duration.ofSeconds(1));
        shard.decide(key(3, 0), 1);

        assertThat(shard.tracks(atFour)).as("slot 4, fresh again, swept").isFalse();
        assertThat(shard.tracks(atFive)).as("slot 5, fresh again, beyond this insert's two slots").isTrue();
        assertThat(shard.size()).isEqualTo(3);
    }

    @Test
    void aShardOfSixteenEntriesStillLooksAtEveryOne() {
        // As above at the largest shard looked at whole: 15 spent clients seen twice and room for one
        // more. Sixteen draws with replacement from 16 entries miss a given one about one time in three.
        Shard shard = new Shard(new LimitEvaluator(Limit.of("l", TokenBucket.perSecond(10, 1))), clock, 16);
        for (int i = 0; i < 15; i++) {
            shard.decide(key(i, i), 5);
            shard.decide(key(i, i), 5);
        }
        for (int n = 0; n < 50; n++) {
            assertThat(shard.decide(key(1000 + n, 15 + n % 17), 1).allowed()).isTrue();
        }
        for (int i = 0; i < 15; i++) {
            assertThat(shard.tracks(key(i, i))).as("spent client %d", i).isTrue();
        }
        assertThat(shard.size()).isEqualTo(16);
    }

    @Test
    void aShardThatDrawsMoreThanItsShareGrowsOnceMoreAndEvictsOnlyWhenThatTableIsSevenEighthsFull() {
        // A share of 13 keys fits a 32-slot table at 75%; the shard may grow once more, to 64 slots,
        // and evicts for its own sake (the limit's cap is far off) only when those hold 56 keys.
        Shard shard = new Shard(new LimitEvaluator(Limit.of("l", TokenBucket.perSecond(10, 1))), clock, 13, 1_000, new AtomicInteger(), new LongAdder());
        for (int i = 0; i < 56; i++) {
            assertThat(shard.decide(key(i, i), 5).allowed()).isTrue();
        }
        assertThat(shard.size()).as("56 keys, none evicted").isEqualTo(56);
        for (int i = 0; i < 56; i++) {
            assertThat(shard.decide(key(i, i), 10).allowed()).as("client %d keeps its state", i).isFalse();
        }

        assertThat(shard.decide(key(56, 56), 5).allowed()).isTrue();
        assertThat(shard.size()).as("the 57th key takes another's place").isEqualTo(56);
    }

    @Test
    void aShardLeftSparseWhileTheOthersFillTheCapStillEvictsOneEntryForANewKey() {
        // A shard whose table grew to 4,096 slots for 2,000 keys, all swept since, holds 17 spent
        // clients while the limit's other shards hold the rest of the cap: random draws from so sparse
        // a table seldom land on an entry, so after 128 the eviction takes the next entry of each draw.
        AtomicInteger tracked = new AtomicInteger();
        Shard shard = new Shard(new LimitEvaluator(Limit.of("l", TokenBucket.perSecond(10, 1))), clock, 2_000, 5_000, tracked, new LongAdder());
        for (int i = 0; i < 2_000; i++) {
            shard.decide(key(10_000 + i, i), 1);
        }
        clock.advance(Duration.ofSeconds(1));
        shard.sweepAll();
        assertThat(shard.size()).isZero();
        for (int i = 0; i < 17; i++) {
            shard.decide(key(i, i * 200), 5);
            shard.decide(key(i, i * 200), 5);
        }
        tracked.set(5_000); // the other shards hold the rest of the cap

        long newKey = key(100, 3_999);
        Decision decision = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> shard.decide(newKey, 1));

        assertThat(decision.allowed()).isTrue();
        assertThat(shard.tracks(newKey)).isTrue();
        assertThat(shard.size()).isEqualTo(17);
        assertThat(tracked.get()).as("the limit's count is still its cap").isEqualTo(5_000);
        assertThat(java.util.stream.IntStream.range(0, 17).filter(i -> shard.tracks(key(i, i * 200))).count())
                .as("spent clients still tracked").isEqualTo(16);
    }

    @Test
    void anEmptyShardTakesAKeyWhileTheOtherShardsHoldTheCap() {
        // Nothing to evict here: the key is added, one over the cap (the README's "at most one per shard").
        AtomicInteger tracked = new AtomicInteger(100);
        Shard shard = new Shard(new LimitEvaluator(Limit.of("l", TokenBucket.perSecond(10, 1))), clock, 50, 100, tracked, new LongAdder());

        assertThat(shard.decide(key(0, 3), 4).remaining()).isEqualTo(6);

        assertThat(shard.decide(key(0, 3), 1).remaining()).as("its state is kept").isEqualTo(5);
        assertThat(shard.size()).isEqualTo(1);
        assertThat(tracked.get()).isEqualTo(101);
    }
}
