package dev.ratelimit.store.redis;

import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.testing.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redis memory per client key, measured with {@code MEMORY USAGE} (key name included, default
 * prefix and a 5-character limit name). The bounds asserted here are the ones the README's "Redis store" section
 * publishes; the measured values are printed to the test output.
 */
class RedisMemoryUsageTest {
    private static RedisServer redis;
    private static RedisStore store;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
        store = RedisStore.builder().url(redis.url()).readTimeout(Duration.ofSeconds(5)).build();
    }

    @AfterAll
    static void stopRedis() {
        store.close();
        redis.close();
    }

    @Test
    void fixedSizeStateTakesAboutOneHundredBytesPerKey() {
        List<Policy> policies = List.of(
                // Slow refills and long windows: the key must outlive a slow machine between write and MEMORY USAGE.
                Policy.tokenBucket(100, 10, Duration.ofHours(1)),
                Policy.fixedWindow(100, Duration.ofHours(1)),
                Policy.slidingWindowCounter(100, Duration.ofHours(1)),
                Policy.gcra(10, Duration.ofHours(1), 100),
                // 7 per hour: the theoretical arrival time keeps a remainder, a string "tat:rem", not an integer
                Policy.gcra(7, Duration.ofHours(1), 100));
        for (Policy policy : policies) {
            Limit limit = Limit.of("bytes", policy);
            store.limiter(limit).tryAcquire("client", 3);
            long bytes = usage(key(limit, "client"));
            System.out.printf("MEMORY USAGE %s: %d bytes%n", policy, bytes);
            assertThat(bytes).as("%s", policy).isBetween(40L, 160L);
        }
    }

    @Test
    void aSlidingWindowLogTakesBytesPerRememberedRequest() {
        for (int limitValue : new int[] {100, 1_000, 10_000}) {
            Limit limit = Limit.of("bytes", Policy.slidingWindowLog(limitValue, Duration.ofHours(1)));
            RateLimiter limiter = store.limiter(limit);
            int cost = Math.min(limitValue, 1_000);
            String client = "full-log-" + limitValue; // one key for every limit of a log: a client of its own each
            for (int filled = 0; filled < limitValue; filled += cost) {
                limiter.tryAcquire(client, cost);
            }
            String key = key(limit, client);
            assertThat(redis.call("ZCARD", key)).isEqualTo((long) limitValue);
            long bytes = usage(key);
            System.out.printf("MEMORY USAGE sliding_window_log full at %d: %d bytes, %.1f per entry%n",
                    limitValue, bytes, bytes / (double) limitValue);
            assertThat(bytes / (double) limitValue).as("bytes per entry at %d", limitValue).isLessThan(limitValue <= 128 ? 40 : 140);
        }
    }

    private static String key(Limit limit, String client) {
        return ScriptLimit.key("rl:", limit, ClientHash.sha256().of(client), 0);
    }

    private static long usage(String key) {
        return (Long) redis.call("MEMORY", "USAGE", key, "SAMPLES", 0);
    }
}
