package dev.ratelimit.bench.memory;

import com.github.benmanes.caffeine.cache.Cache;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;

import java.time.Duration;
import java.util.function.Function;

/**
 * Bucket4j: a local lock-free {@link Bucket} per key, held in a {@link PerKeyCache}. With
 * {@code probe} the decision is {@link Bucket#tryConsumeAndReturnRemaining} (the call a filter
 * that sends rate-limit headers makes: remaining tokens and nanos to wait, like our Decision);
 * without, the bare {@link Bucket#tryConsume} boolean, Bucket4j's cheapest call.
 */
final class Bucket4jContender implements Contender {
    private final Cache<String, Bucket> buckets;
    private final Function<String, Bucket> newBucket;
    private final boolean probe;
    private final long prespend;

    /**
     * @param maxKeys   the cache's maximum size
     * @param capacity  tokens per bucket
     * @param perToken  the time to refill one token (greedy refill)
     * @param prespend  tokens {@link #prepare} takes (0 for none)
     * @param probe     whether a decision returns a {@link ConsumptionProbe} rather than a boolean
     */
    Bucket4jContender(int maxKeys, long capacity, Duration perToken, long prespend, boolean probe) {
        this.buckets = PerKeyCache.create(maxKeys);
        this.newBucket = key -> Bucket.builder()
                .addLimit(limit -> limit.capacity(capacity).refillGreedy(1, perToken))
                .build();
        this.probe = probe;
        this.prespend = prespend;
    }

    @Override
    public Object decide(String key) {
        Bucket bucket = buckets.get(key, newBucket);
        return probe ? bucket.tryConsumeAndReturnRemaining(1) : Boolean.valueOf(bucket.tryConsume(1));
    }

    @Override
    public boolean allowed(Object result) {
        return result instanceof ConsumptionProbe p ? p.isConsumed() : (Boolean) result;
    }

    @Override
    public void prepare(String key) {
        Bucket bucket = buckets.get(key, newBucket);
        if (prespend > 0) {
            bucket.tryConsume(prespend);
        }
    }
}
