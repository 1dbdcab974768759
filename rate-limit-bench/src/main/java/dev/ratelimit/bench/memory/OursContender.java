package dev.ratelimit.bench.memory;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.store.memory.MemoryStore;

/** Ours: {@link MemoryStore} and {@link RateLimiter#tryAcquire}, returning the {@link Decision} a filter writes headers from. */
final class OursContender implements Contender {
    private final MemoryStore store;
    private final RateLimiter limiter;
    private final long prespend;

    /**
     * @param policy   the one policy of the limit
     * @param maxKeys  the store's cap on tracked keys
     * @param prespend the cost {@link #prepare} takes from a key's quota (at least 1)
     */
    OursContender(Policy policy, int maxKeys, long prespend) {
        this.store = MemoryStore.builder().maxKeysPerLimit(maxKeys).build();
        this.limiter = store.limiter(Limit.of("bench", policy));
        this.prespend = Math.max(1, prespend);
    }

    @Override
    public Object decide(String key) {
        return limiter.tryAcquire(key);
    }

    @Override
    public boolean allowed(Object result) {
        return ((Decision) result).allowed();
    }

    @Override
    public void prepare(String key) {
        limiter.tryAcquire(key, prespend);
    }

    /** Keys the store tracks right now. */
    long trackedKeys() {
        return store.trackedKeys();
    }
}
