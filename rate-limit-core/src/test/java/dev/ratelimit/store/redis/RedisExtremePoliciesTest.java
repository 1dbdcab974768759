package dev.ratelimit.store.redis;

import dev.ratelimit.Decision;
import dev.ratelimit.InvalidConfigurationException;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.store.memory.MemoryStore;
import dev.ratelimit.testing.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Policies at the edge of their validated ranges decide the same on Redis as in memory. */
class RedisExtremePoliciesTest {
    private static final long START = Instant.parse("2026-03-02T10:00:00Z").getEpochSecond() * 1_000_000L;
    private static RedisServer redis;
    private static ManualClock clock;
    private static RedisStore store;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
        clock = new ManualClock(START);
        store = RedisStore.builder().url(redis.url()).clock(clock).timeFromClock(true).denialCache(false)
                .readTimeout(Duration.ofSeconds(2)).build();
    }

    @AfterAll
    static void stopRedis() {
        store.close();
        redis.close();
    }

    private static void same(Limit limit, long... costs) {
        clock.setMicros(START + 1);
        RateLimiter memory = MemoryStore.builder().clock(clock).build().limiter(limit);
        RateLimiter onRedis = store.limiter(limit);
        String key = "client-" + UUID.randomUUID();
        for (long cost : costs) {
            Decision want = memory.tryAcquire(key, cost);
            Decision got = onRedis.tryAcquire(key, cost);
            assertThat(got).as("%s, cost %d", limit, cost).isEqualTo(want);
            clock.advanceMicros(1);
        }
    }

    @Test
    void gcraOfTheLongestRefillStillRejectsOnRedisAfterAFullBurst() {
        // 2^32 requests, one per 2^20 µs: a full burst puts TAT 2^52 µs (142 years) ahead of the clock
        same(Limit.of("gcra-far", Policy.gcra(1, Duration.ofNanos((1L << 20) * 1000), 1L << 32)), 1L << 32, 1, 1);
    }

    @Test
    void tokenBucketOfTheMostUnitsStillRejectsOnRedisOnceEmpty() {
        same(Limit.of("tb-max", Policy.tokenBucket((1L << 53) - 1, 2, Duration.ofNanos(1000))), (1L << 53) - 1, 1, 1);
    }

    @Test
    void tokenBucketWhoseRefillIsNearlyAsLargeAsItsCapacityDividesExactlyOnRedis() {
        // Lua's floor(a / b) * b for the deficit 2b+1 and the rate b: the product passes 2^53 and rounds,
        // which made the time to refill 2 µs instead of 3 (fdiv's correction step must not multiply).
        long b = 3_500_000_000_000_001L;
        long max = (1L << 53) - 1;
        same(Limit.of("tb-rate", Policy.tokenBucket(max, b, Duration.ofNanos(1000))), 2 * b + 1, 1, max);
    }

    @Test
    void fixedWindowOfTheLargestLimitStillRejectsOnRedisOnceFull() {
        long max = (1L << 53) - 1;
        same(Limit.of("fw-max", Policy.fixedWindow(max, Duration.ofMinutes(1))), max, 1, max + 2, 1L << 53);
    }

    @Test
    void slidingWindowCounterOfTheLargestLimitStillRejectsOnRedisOnceFull() {
        same(Limit.of("swc-max", Policy.slidingWindowCounter((1L << 53) - 1, Duration.ofNanos(1000))), (1L << 53) - 1, 1, 1);
    }

    @Test
    void policiesThatWouldReachTwoToThe53AreRefused() {
        assertThatThrownBy(() -> Policy.fixedWindow(1L << 53, Duration.ofMinutes(1)))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("limit");
        assertThatThrownBy(() -> Policy.slidingWindowCounter(1L << 53, Duration.ofNanos(1000)))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("limit");
        assertThatThrownBy(() -> Policy.tokenBucket(1L << 23, 1, Duration.ofNanos((1L << 30) * 1000)))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("capacity");
        // TAT up to 8.64e15 µs ahead: past 2^53 µs (the year 2255) from 2026 on, where Lua loses it
        assertThatThrownBy(() -> Policy.gcra(1, Duration.ofDays(1), 100_000))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("burst");
        assertThatThrownBy(() -> Policy.tokenBucket(100_000, 1, Duration.ofDays(1)))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("capacity");
    }
}
