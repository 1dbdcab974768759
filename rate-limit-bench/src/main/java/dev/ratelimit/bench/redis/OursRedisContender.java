package dev.ratelimit.bench.redis;

import dev.ratelimit.Decision;
import dev.ratelimit.FailureMode;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import dev.ratelimit.store.redis.RedisStore;

import java.time.Duration;

/**
 * Ours: a {@link RedisStore} built from its URL as a user would (pool of {@value Clients#POOL_SIZE}),
 * with timeouts raised to {@value Clients#TIMEOUT_MILLIS} ms and {@link FailureMode#FAIL_CLOSED}, so a
 * decision Redis did not make is counted as rejected instead of passing silently.
 */
final class OursRedisContender implements RedisContender {
    private final RedisStore store;
    private final RateLimiter limiter;
    private final long prespend;

    OursRedisContender(int port, Policy policy, long prespend, boolean denialCache, boolean pipelining) {
        this("redis://127.0.0.1:" + port, policy, prespend, denialCache, pipelining);
    }

    /** On the Redis (or Redis Cluster) at {@code url}. */
    OursRedisContender(String url, Policy policy, long prespend, boolean denialCache, boolean pipelining) {
        this.store = RedisStore.builder()
                .url(url)
                .poolSize(Clients.POOL_SIZE)
                .connectTimeout(Duration.ofMillis(Clients.TIMEOUT_MILLIS))
                .readTimeout(Duration.ofMillis(Clients.TIMEOUT_MILLIS))
                .failureMode(FailureMode.FAIL_CLOSED)
                .denialCache(denialCache)
                .pipelining(pipelining)
                .build();
        this.limiter = store.limiter(Limit.of("bench", policy));
        this.prespend = Math.max(1, prespend);
    }

    @Override
    public Object decide(String key) {
        return limiter.tryAcquire(key);
    }

    @Override
    public boolean allowed(Object result) {
        Decision d = (Decision) result;
        return d.allowed() && d.source() == Source.STORE;
    }

    @Override
    public void prepare(String key) {
        limiter.tryAcquire(key, prespend);
    }

    @Override
    public void close() {
        store.close();
    }
}
