package dev.ratelimit.bench.redis;

import dev.ratelimit.TokenBucket;
import dev.ratelimit.testing.RedisBinary;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Redis adapters, on a real throw-away redis-server: each enforces the limit it is given per key, so the
 * benchmark compares limiters that really limit; each benchmark contender allows a key it has prepared; and a
 * decision our store did not get from Redis counts as rejected, as the benchmark's {@code rejected} counter needs.
 */
class RedisContendersTest {
    private static final Duration HOUR = Duration.ofHours(1);
    /** The redis-server on the PATH, else the one bundled in embedded-redis (Redis 6.2): the tests run without Redis installed. */
    private static final String REDIS_SERVER = RedisBinary.find().toString();
    private static RedisServer server;

    @BeforeAll
    static void startRedis() throws IOException {
        server = RedisServer.start(REDIS_SERVER);
    }

    @AfterAll
    static void stopRedis() {
        server.close();
    }

    private static List<Boolean> fiveRequests(RedisContender contender, String key) {
        List<Boolean> verdicts = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            verdicts.add(contender.allowed(contender.decide(key)));
        }
        return verdicts;
    }

    @Test
    void bucket4jAndOursAllowThreePerKeyThenReject() {
        try (RedisContender bucket4j = new Bucket4jRedisContender(server.port(), 3, HOUR, 0);
             RedisContender ours = new OursRedisContender(server.port(), new TokenBucket(3, 1, HOUR), 1, true, true)) {
            for (RedisContender c : List.of(bucket4j, ours)) {
                String name = c.getClass().getSimpleName();
                assertThat(fiveRequests(c, "apikey:" + name + "-a")).as(name).containsExactly(true, true, true, false, false);
                assertThat(fiveRequests(c, "apikey:" + name + "-b")).as(name).containsExactly(true, true, true, false, false);
            }
        }
    }

    @Test
    void everyBenchmarkContenderAllowsAKeyItHasPrepared() {
        for (RedisContenderKind kind : RedisContenderKind.values()) {
            try (RedisContender c = kind.create(server.port(), true)) {
                String key = "apikey:prepared-" + kind;
                c.prepare(key);
                assertThat(c.allowed(c.decide(key))).as(kind.toString()).isTrue();
            }
        }
    }

    @Test
    void theClusterBenchmarksClusterFormsAndOurStoreLimitsKeysOnEveryMaster() throws Exception {
        try (RedisClusterServers cluster = RedisClusterServers.start(REDIS_SERVER, RedisClusterBenchmark.MASTERS);
             RedisContender ours = new OursRedisContender(cluster.url(), new TokenBucket(3, 1, HOUR), 1, true, true)) {
            for (int i = 0; i < 30; i++) { // 30 keys: some on each master
                assertThat(fiveRequests(ours, "apikey:cluster-" + i)).as("key %d", i).containsExactly(true, true, true, false, false);
            }
        }
    }

    @Test
    void aDecisionOurStoreDidNotGetFromRedisCountsAsRejected() throws IOException {
        RedisServer gone = RedisServer.start(REDIS_SERVER);
        try (RedisContender ours = RedisContenderKind.OURS_TOKEN_BUCKET.create(gone.port(), true)) {
            gone.close();
            assertThat(ours.allowed(ours.decide("apikey:a"))).isFalse();
        } finally {
            gone.close();
        }
    }

    @Test
    void commandStatsReadCallsAndMicrosAndCountSubcommandsUnderTheirParent() {
        String info = "# Commandstats\r\n"
                + "cmdstat_fcall:calls=10,usec=200,usec_per_call=20.00,rejected_calls=0,failed_calls=0\r\n"
                + "cmdstat_config|resetstat:calls=1,usec=5,usec_per_call=5.00,rejected_calls=0,failed_calls=0\r\n"
                + "cmdstat_config|get:calls=2,usec=4,usec_per_call=2.00,rejected_calls=0,failed_calls=0\r\n";

        var stats = RedisCosts.commandStats(info);

        assertThat(stats).containsOnlyKeys("fcall", "config");
        assertThat(stats.get("fcall")).containsExactly(10, 200);
        assertThat(stats.get("config")).containsExactly(3, 9);
    }
}
