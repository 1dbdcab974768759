package dev.ratelimit.bench.memory;

import com.github.benmanes.caffeine.cache.Cache;
import com.google.common.util.concurrent.RateLimiter;

import java.util.function.Function;

/**
 * Guava: a {@link RateLimiter} per key (smooth bursty, {@link RateLimiter#tryAcquire()} without
 * waiting), held in a {@link PerKeyCache}. Guava has no separate capacity: a limiter stores at most
 * one second of its rate, and a fresh one starts with none stored but always lets its first request
 * pass. Its answer is a boolean; it offers nothing to fill rate-limit headers with.
 */
final class GuavaContender implements Contender {
    private final Cache<String, RateLimiter> limiters;
    private final Function<String, RateLimiter> newLimiter;

    /**
     * @param maxKeys          the cache's maximum size
     * @param permitsPerSecond each key's rate
     */
    GuavaContender(int maxKeys, double permitsPerSecond) {
        this.limiters = PerKeyCache.create(maxKeys);
        this.newLimiter = key -> RateLimiter.create(permitsPerSecond);
    }

    @Override
    public Object decide(String key) {
        return Boolean.valueOf(limiters.get(key, newLimiter).tryAcquire());
    }

    @Override
    public boolean allowed(Object result) {
        return (Boolean) result;
    }

    @Override
    public void prepare(String key) {
        limiters.get(key, newLimiter).tryAcquire();
    }
}
