package dev.ratelimit.bench.memory;

import com.github.benmanes.caffeine.cache.Cache;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;

import java.time.Duration;
import java.util.function.Function;

/**
 * Resilience4j: an {@link AtomicRateLimiter} per key ({@code limitForPeriod} permits per
 * {@code refreshPeriod} cycle, no waiting), held in a {@link PerKeyCache}. Its answer is a boolean.
 */
final class Resilience4jContender implements Contender {
    private final Cache<String, AtomicRateLimiter> limiters;
    private final Function<String, AtomicRateLimiter> newLimiter;
    private final int prespend;

    /**
     * @param maxKeys        the cache's maximum size
     * @param limitForPeriod permits per cycle
     * @param refreshPeriod  the cycle
     * @param prespend       permits {@link #prepare} takes (0 for none)
     */
    Resilience4jContender(int maxKeys, int limitForPeriod, Duration refreshPeriod, int prespend) {
        RateLimiterConfig config = RateLimiterConfig.custom()
                .limitForPeriod(limitForPeriod)
                .limitRefreshPeriod(refreshPeriod)
                .timeoutDuration(Duration.ZERO)
                .build();
        this.limiters = PerKeyCache.create(maxKeys);
        this.newLimiter = key -> new AtomicRateLimiter(key, config);
        this.prespend = prespend;
    }

    @Override
    public Object decide(String key) {
        return Boolean.valueOf(limiters.get(key, newLimiter).acquirePermission());
    }

    @Override
    public boolean allowed(Object result) {
        return (Boolean) result;
    }

    @Override
    public void prepare(String key) {
        AtomicRateLimiter limiter = limiters.get(key, newLimiter);
        if (prespend > 0) {
            limiter.acquirePermission(prespend);
        }
    }
}
