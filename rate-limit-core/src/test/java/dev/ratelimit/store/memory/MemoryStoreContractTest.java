package dev.ratelimit.store.memory;

import dev.ratelimit.ManualClock;
import dev.ratelimit.RateLimitStore;
import dev.ratelimit.testing.RateLimitStoreContract;

/** The in-memory store keeps the store contract (its hand-computed values; it is also the reference). */
class MemoryStoreContractTest extends RateLimitStoreContract {
    @Override
    protected RateLimitStore createStore(ManualClock clock) {
        return MemoryStore.builder().clock(clock).build();
    }
}
