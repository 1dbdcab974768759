package dev.ratelimit.store.memory;

import dev.ratelimit.Clock;
import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.algorithm.LimitEvaluator;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * One limit's keys, spread over independently locked {@link Shard}s by the key's hash. The shards
 * count their keys in one shared counter, so eviction starts when the limit as a whole is full, not
 * when the shard a key hashes to holds its even share of the cap.
 */
final class MemoryRateLimiter implements RateLimiter {
    private final Limit limit;
    private final Shard[] shards;
    private final int shardShift;
    private final KeyHash keyHash;
    private final LongAdder evicted = new LongAdder();

    MemoryRateLimiter(Limit limit, Clock clock, int maxKeys, KeyHash keyHash) {
        this.limit = limit;
        this.keyHash = keyHash;
        int shardCount = shardCount(maxKeys);
        this.shardShift = 64 - Integer.numberOfTrailingZeros(shardCount);
        this.shards = new Shard[shardCount];
        LimitEvaluator evaluator = new LimitEvaluator(limit);
        AtomicInteger tracked = new AtomicInteger();
        for (int i = 0; i < shardCount; i++) {
            // Spread the cap exactly: the first (maxKeys % shardCount) shards hold one more.
            int share = maxKeys / shardCount + (i < maxKeys % shardCount ? 1 : 0);
            shards[i] = new Shard(evaluator, clock, share, maxKeys, tracked, evicted);
        }
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
        Shard shard = shardShift == 64 ? shards[0] : shards[(int) (hash >>> shardShift)];
        return shard.decide(hash, cost);
    }

    long trackedKeys() {
        long total = 0;
        for (Shard shard : shards) {
            total += shard.size();
        }
        return total;
    }

    long evictions() {
        return evicted.sum();
    }

    void cleanUp() {
        for (Shard shard : shards) {
            shard.sweepAll();
        }
    }
}
