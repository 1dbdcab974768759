package dev.ratelimit.store.redis;

import dev.ratelimit.ManualClock;
import dev.ratelimit.RateLimitStore;
import dev.ratelimit.testing.RateLimitStoreContract;
import dev.ratelimit.testing.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The Redis store decides exactly what the in-memory store decides (timed by the test's manual clock). */
class RedisStoreContractTest extends RateLimitStoreContract {
    private static RedisServer redis;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @Override
    protected RateLimitStore createStore(ManualClock clock) {
        return RedisStore.builder().url(redis.url()).clock(clock).timeFromClock(true).denialCache(false)
                .readTimeout(java.time.Duration.ofSeconds(2)).build();
    }
}
