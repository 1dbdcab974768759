package dev.ratelimit.store.memory;

import dev.ratelimit.Clock;
import dev.ratelimit.Decision;
import dev.ratelimit.algorithm.LimitEvaluator;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * One lock's worth of keys: an open-addressing table (linear probing, backward-shift deletion) of
 * fixed-size slots {@code [tag, state...]} in a single {@code long[]}, so a decision touches one
 * cache line and allocates nothing but its {@link Decision}.
 *
 * <p>The tag is the key's hash with its low 8 bits replaced by a use counter (saturating at 255,
 * halved every {@code 8 * share} allowed decisions on keys already present). When a new key arrives and the
 * limit is full (its shards together hold {@code cap} keys, counted in one counter they share) or
 * this shard is (7/8 of its largest table), it first drops entries whose state is fresh again (forgetting them changes
 * nothing), then evicts the least-used of a random sample, so a flood of new keys evicts other new keys, not
 * the clients that keep coming back. Every insert also sweeps two slots, so stale entries leave as
 * new ones arrive; {@link #sweepAll} sweeps the whole shard.
 */
final class Shard {
    private static final long FREQ_MASK = 0xFFL;
    private static final long KEY_MASK = ~FREQ_MASK;
    private static final int MIN_LENGTH = 8;
    private static final int SWEEP_PER_INSERT = 2;
    private static final int SWEEP_WHEN_FULL = 32;
    private static final int EVICTION_SAMPLE = 16;

    private final LimitEvaluator evaluator;
    private final Clock clock;
    private final int stride;
    private final int logsPerSlot;
    private final int share;
    private final int cap;
    private final AtomicInteger tracked;
    private final LongAdder evicted;
    private final int maxEntries;
    private final int shareLength;
    private final int maxLength;

    private long[] table;
    private Object[] logs;
    private int length;
    private int count;
    private int cursor;
    private long hitsSinceAging;

    /** A shard alone: it holds at most {@code cap} keys. */
    Shard(LimitEvaluator evaluator, Clock clock, int cap) {
        this(evaluator, clock, cap, cap, new AtomicInteger(), new LongAdder());
    }

    /**
     * One of the shards of a limit of {@code cap} keys, which all count their keys in {@code tracked};
     * {@code share} is this shard's part of the cap. The table grows in powers of two at 75% full
     * until it can hold the share so; keys fall into shards by chance, and a shard that draws more
     * than its share grows once more when that table is 7/8 full (twice the memory, for that shard only).
     * {@code evicted} counts the entries it drops at the cap whose state was not fresh again.
     */
    Shard(LimitEvaluator evaluator, Clock clock, int share, int cap, AtomicInteger tracked, LongAdder evicted) {
        this.evaluator = evaluator;
        this.clock = clock;
        this.stride = 1 + evaluator.words();
        this.logsPerSlot = evaluator.logs();
        this.share = share;
        this.cap = cap;
        this.tracked = tracked;
        this.evicted = evicted;
        this.shareLength = Math.max(MIN_LENGTH, Integer.highestOneBit(Math.max(1, (share * 4 + 2) / 3 - 1)) << 1);
        this.maxLength = shareLength * 2;
        this.maxEntries = maxLength - maxLength / 8;
        allocate(MIN_LENGTH);
    }

    synchronized Decision decide(long hash, long cost) {
        long key = keyOf(hash);
        long now = clock.nowMicros();
        int slot = find(key);
        if (slot < 0) {
            if (evaluator.neverPasses(cost)) {
                // Decided on a fresh state that is not kept: nothing worth remembering, and no client
                // evicted at the cap to make room for it.
                return evaluator.decide(new long[stride], 1, new Object[logsPerSlot], 0, now, cost);
            }
            slot = insert(key, now);
            return evaluator.decide(table, slot * stride + 1, logs, slot * logsPerSlot, now, cost);
        }
        if ((table[slot * stride] & FREQ_MASK) != FREQ_MASK) {
            table[slot * stride]++;
        }
        Decision decision = evaluator.decide(table, slot * stride + 1, logs, slot * logsPerSlot, now, cost);
        // Only allowed requests of returning keys age the counters: a flood of new keys must not wear
        // down the regulars, nor a client hammering its own refused key (refusals cost it nothing).
        if (decision.allowed() && ++hitsSinceAging >= 8L * share) {
            age();
        }
        return decision;
    }

    /** Whether the key with {@code hash} has an entry (its state, or a fresh one not yet swept). */
    synchronized boolean tracks(long hash) {
        return find(keyOf(hash)) >= 0;
    }

    synchronized int size() {
        return count;
    }

    /** Drops every entry whose state is fresh again at {@code now}. */
    synchronized void sweepAll() {
        long now = clock.nowMicros();
        for (int i = 0; i < length; i++) {
            // Removal shifts a later entry of the run into i: look at i again until it keeps its entry.
            while (table[i * stride] != 0 && isFresh(i, now)) {
                remove(i);
            }
        }
    }

    private static long keyOf(long hash) {
        long key = hash & KEY_MASK;
        return key == 0 ? 1L << 8 : key;
    }

    /** The slot where a key's probe run starts. */
    private int home(long key) {
        return (int) (key >>> 8) & (length - 1);
    }

    private int find(long key) {
        int i = home(key);
        while (true) {
            long tag = table[i * stride];
            if (tag == 0) {
                return -1;
            }
            if ((tag & KEY_MASK) == key) {
                return i;
            }
            i = (i + 1) & (length - 1);
        }
    }

    private int insert(long key, long now) {
        sweep(SWEEP_PER_INSERT, now);
        if ((count >= maxEntries || tracked.get() >= cap) && sweep(SWEEP_WHEN_FULL, now) == 0 && count > 0) {
            // (A shard with nothing to evict while the others fill the cap adds its key anyway.)
            evictLeastUsed(key, now);
        }
        if (length < maxLength && (count + 1) * 4L > length * 3L && (length < shareLength || (count + 1) * 8L > length * 7L)) {
            allocate(length * 2);
        }
        int i = home(key);
        while (table[i * stride] != 0) {
            i = (i + 1) & (length - 1);
        }
        table[i * stride] = key | 1;
        count++;
        tracked.incrementAndGet();
        return i;
    }

    private boolean isFresh(int slot, long now) {
        return evaluator.forgetAtMicros(table, slot * stride + 1, logs, slot * logsPerSlot) <= now;
    }

    /** Visits up to {@code budget} slots from the cursor, dropping fresh entries; returns how many it dropped. */
    private int sweep(int budget, long now) {
        int dropped = 0;
        for (int n = 0; n < budget && count > 0; n++) {
            if (table[cursor * stride] != 0 && isFresh(cursor, now)) {
                remove(cursor);
                dropped++;
            } else {
                cursor = (cursor + 1) & (length - 1);
            }
        }
        return dropped;
    }

    /**
     * Drops one entry of a sample of {@value #EVICTION_SAMPLE} drawn at random: the first whose state
     * is fresh again (forgetting it changes nothing), else the least used. At random, not the entries
     * after the cursor: taking the first least-used of consecutive entries ate the invented keys in
     * the cursor's path, and a sample there often held only regulars, so a flood evicted some of them
     * (a fifth of the regulars in a test where they and other returning clients held a third of the cap).
     * The draws are SplitMix64 steps seeded by the new key's hash, which only the store's secret
     * decides. A shard of at most {@value #EVICTION_SAMPLE} entries is looked at whole instead: draws
     * with replacement would miss one of them often (one in five at 10 entries); the scan starts at
     * the new key's home slot, so that among entries used equally often the victim is no particular
     * slot's (from slot 0, a returning client at a low slot was evicted by every new key, each time
     * before it came back).
     */
    private void evictLeastUsed(long newKey, long now) {
        int mask = length - 1;
        int victim = -1;
        long fewest = Long.MAX_VALUE;
        boolean whole = count <= EVICTION_SAMPLE;
        long draw = newKey;
        for (int seen = 0, tries = 0; seen < (whole ? count : EVICTION_SAMPLE); tries++) {
            int i;
            if (whole) {
                // From a slot the new key's hash picks, so that ties do not always fall on the lowest slot.
                i = (int) ((newKey >>> 8) + tries) & mask;
            } else {
                draw += 0x9E3779B97F4A7C15L;
                long z = (draw ^ (draw >>> 30)) * 0xBF58476D1CE4E5B9L;
                z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
                i = (int) (z ^ (z >>> 31)) & mask;
            }
            if (!whole && tries >= 8 * EVICTION_SAMPLE) {
                // A sparse table (this shard holds few of the cap's keys): the next entry, whatever it is.
                while (table[i * stride] == 0) {
                    i = (i + 1) & mask;
                }
            }
            long tag = table[i * stride];
            if (tag == 0) {
                continue;
            }
            seen++;
            if (isFresh(i, now)) {
                remove(i); // forgetting a fresh state changes nothing: not an eviction
                return;
            }
            if ((tag & FREQ_MASK) < fewest) {
                fewest = tag & FREQ_MASK;
                victim = i;
            }
        }
        remove(victim);
        evicted.increment();
    }

    private void age() {
        hitsSinceAging = 0;
        for (int i = 0; i < length; i++) {
            int t = i * stride;
            long tag = table[t];
            if (tag != 0) {
                table[t] = (tag & KEY_MASK) | ((tag & FREQ_MASK) >>> 1);
            }
        }
    }

    /** Empties slot {@code i}, shifting later entries of its probe run back so lookups still find them. */
    private void remove(int i) {
        int mask = length - 1;
        int j = i;
        while (true) {
            j = (j + 1) & mask;
            long tag = table[j * stride];
            if (tag == 0) {
                break;
            }
            int h = home(tag);
            boolean stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
            if (!stays) {
                System.arraycopy(table, j * stride, table, i * stride, stride);
                if (logsPerSlot > 0) {
                    System.arraycopy(logs, j * logsPerSlot, logs, i * logsPerSlot, logsPerSlot);
                }
                i = j;
            }
        }
        Arrays.fill(table, i * stride, i * stride + stride, 0L);
        if (logsPerSlot > 0) {
            Arrays.fill(logs, i * logsPerSlot, i * logsPerSlot + logsPerSlot, null);
        }
        count--;
        tracked.decrementAndGet();
    }

    private void allocate(int newLength) {
        long[] oldTable = table;
        Object[] oldLogs = logs;
        int oldLength = length;
        table = new long[newLength * stride];
        logs = logsPerSlot > 0 ? new Object[newLength * logsPerSlot] : null;
        length = newLength;
        cursor = 0;
        for (int i = 0; i < oldLength; i++) {
            long tag = oldTable[i * stride];
            if (tag == 0) {
                continue;
            }
            int j = (int) (tag >>> 8) & (newLength - 1); // home(tag) in the new length
            while (table[j * stride] != 0) {
                j = (j + 1) & (newLength - 1);
            }
            System.arraycopy(oldTable, i * stride, table, j * stride, stride);
            if (logsPerSlot > 0) {
                System.arraycopy(oldLogs, i * logsPerSlot, logs, j * logsPerSlot, logsPerSlot);
            }
        }
    }
}
