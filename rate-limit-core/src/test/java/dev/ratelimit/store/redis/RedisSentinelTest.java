package dev.ratelimit.store.redis;

import dev.ratelimit.Decision;
import dev.ratelimit.FailureMode;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import dev.ratelimit.testing.RedisServer;
import dev.ratelimit.testing.Resp;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A {@code redis-sentinel://} URL finds the master through Sentinel and decides there. */
class RedisSentinelTest {

    @Test
    void aSentinelUrlDecidesOnTheMasterItNames() {
        try (RedisServer master = RedisServer.start();
             RedisServer sentinel = RedisServer.startSentinel(master, "ratelimit");
             RedisStore store = RedisStore.builder().url("redis-sentinel://127.0.0.1:" + sentinel.port() + "/ratelimit/1")
                     .readTimeout(Duration.ofSeconds(2)).connectTimeout(Duration.ofSeconds(2)).build()) {
            Limit limit = Limit.of("sentinel", Policy.gcra(1, Duration.ofMinutes(1), 2));
            RateLimiter limiter = store.limiter(limit);
            assertThat(limiter.tryAcquire("client").source()).isEqualTo(Source.STORE);
            assertThat(limiter.tryAcquire("client").remaining()).isZero();
            assertThat(master.call("DBSIZE")).as("keys in database 0").isEqualTo(0L);
            String db1 = Resp.info(master.port(), "keyspace", "db1");
            assertThat(db1).as("keys in database 1 (from the URL)").startsWith("keys=1,");
        }
    }

    @Test
    void afterTheMasterRestartsACallSentAgainGoesOnAFreshConnectionNotAnotherDeadOne() throws Exception {
        try (RedisServer master = RedisServer.start();
             RedisServer sentinel = RedisServer.startSentinel(master, "ratelimit");
             RedisStore store = RedisStore.builder().url("redis-sentinel://127.0.0.1:" + sentinel.port() + "/ratelimit")
                     .failureMode(FailureMode.FAIL_CLOSED).pipelining(false)
                     .readTimeout(Duration.ofSeconds(5)).connectTimeout(Duration.ofSeconds(2)).build()) {
            RateLimiter limiter = store.limiter(Limit.of("sentinel-restart", Policy.fixedWindow(5, Duration.ofDays(1))));
            assertThat(limiter.tryAcquire("warm-up").source()).isEqualTo(Source.STORE);
            // Three calls held together by a pause, each on a pooled connection of its own.
            master.call("CLIENT", "PAUSE", 1_000, "WRITE"); // not the Sentinel's pings: it must not think the master down
            HeldCalls.decidedTogetherByRedis(limiter, List.of("held-0", "held-1", "held-2"));

            master.restart(); // same port, empty
            Decision after = limiter.tryAcquire("client");
            assertThat(after.source()).isEqualTo(Source.STORE);
            assertThat(after.remaining()).isEqualTo(4);
        }
    }
}
