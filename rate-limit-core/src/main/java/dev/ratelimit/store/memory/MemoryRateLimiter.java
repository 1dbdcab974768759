package dev.ratelimit.store.memory;

import dev.ratelimit.Clock;
import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.algorithm.LimitEvaluator;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * One limit's keys, spread over independently locked {@link Shard}s by the key's hash. The shards
 * count their keys in one shared counter, so eviction starts when the limit as a whole is full, not
 * when the shard a key hashes to holds its even share of the cap.
 */
final class MemoryRateLimiter implements RateLimiter {
    /** The shards, read with acquire and made with one compare-and-set each: see {@link #shard}. */
    private static final VarHandle SHARDS = MethodHandles.arrayElementVarHandle(Shard[].class);

    private final Limit limit;
    /** Made at their first key, so that a bound limit costs an array of 64 references, not 64 shards. */
    private final Shard[] shards;
    private final int shardShift;
    private final KeyHash keyHash;
    private final LimitEvaluator evaluator;
    private final Clock clock;
    private final int maxKeys;
    private final AtomicInteger tracked = new AtomicInteger();
    private final LongAdder evicted = new LongAdder();

    MemoryRateLimiter(Limit limit, Clock clock, int maxKeys, KeyHash keyHash) {
        this.limit = limit;
        this.keyHash = keyHash;
        this.clock = clock;
        this.maxKeys = maxKeys;
        this.evaluator = new LimitEvaluator(limit);
        int shardCount = shardCount(maxKeys);
        this.shardShift = 64 - Integer.numberOfTrailingZeros(shardCount);
        this.shards = new Shard[shardCount];
    }

    /** Shard {@code i}, made by the first caller that needs it (two callers at once keep the same one). */
    private Shard shard(int i) {
        Shard shard = (Shard) SHARDS.getAcquire(shards, i);
        if (shard != null) {
            return shard;
        }
        // Spread the cap exactly: the first (maxKeys % shardCount) shards hold one more.
        int share = maxKeys / shards.length + (i < maxKeys % shards.length ? 1 : 0);
        Shard made = new Shard(evaluator, clock, share, maxKeys, tracked, evicted);
        Shard won = (Shard) SHARDS.compareAndExchange(shards, i, null, made);
        return won == null ? made : won;
    }

    /** The shards made so far. */
    private Iterable<Shard> made() {
        List<Shard> made = new ArrayList<>(shards.length);
        for (int i = 0; i < shards.length; i++) {
            Shard shard = (Shard) SHARDS.getAcquire(shards, i);
            if (shard != null) {
                made.add(shard);
            }
        }
        return made;
    }

    /**
     * Up to 64 shards, a share of at least 128 keys each: keys spread over the shards by chance, and
     * with shares that large no shard fills its table before the limit reaches its cap.
     */
    static int shardCount(int maxKeys) {
        return Math.max(1, Math.min(64, Integer.highestOneBit(Math.max(1, maxKeys / 128))));
    }

    @Override
    public Limit limit() {
        return limit;
    }

    @Override
    public Decision tryAcquire(String key, long cost) {
        if (cost < 1) {
            throw new IllegalArgumentException("cost must be >= 1, was " + cost);
        }
        if (key == null) {
            throw new IllegalArgumentException("key must not be null");
        }
        long hash = keyHash.hash(key);
        // Top bits pick the shard; the shard's table indexes with bits from 8 up, so the two are independent.
        return shard(shardShift == 64 ? 0 : (int) (hash >>> shardShift)).decide(hash, cost);
    }

    long trackedKeys() {
        long total = 0;
        for (Shard shard : made()) {
            total += shard.size();
        }
        return total;
    }

    long evictions() {
        return evicted.sum();
    }

    void cleanUp() {
        for (Shard shard : made()) {
            shard.sweepAll();
        }
    }
}
