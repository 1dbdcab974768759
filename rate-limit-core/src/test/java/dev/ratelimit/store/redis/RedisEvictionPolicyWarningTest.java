package dev.ratelimit.store.redis;

import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.Source;
import dev.ratelimit.testing.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Redis that may evict keys when it is full (a {@code maxmemory} with a policy other than
 * {@code noeviction}: the default of some managed Redis, and of a Redis shared with an application
 * cache) gives a client whose key it evicts its whole quota back. In a trial, 5 abusive clients among
 * 2,000 new ones a second each got 50 requests through a limit of 15 under {@code allkeys-lru}. The
 * start-up check says so, where the user may read {@code INFO}; nothing failed or warned before.
 */
class RedisEvictionPolicyWarningTest {
    private static final String WARNING = "may evict its keys";
    private static RedisServer redis;

    private final ByteArrayOutputStream log = new ByteArrayOutputStream();
    private PrintStream stderr;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @BeforeEach
    void captureLog() {
        // slf4j-simple writes to whatever System.err is at the time of each line.
        stderr = System.err;
        System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restoreLogAndMemory() {
        System.setErr(stderr);
        redis.call("CONFIG", "SET", "maxmemory", "0");
        redis.call("CONFIG", "SET", "maxmemory-policy", "noeviction");
    }

    @Test
    void theCheckWarnsOnceWhenRedisMayEvictTheStoresKeys() {
        redis.call("CONFIG", "SET", "maxmemory", "104857600");
        redis.call("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
        try (RedisStore store = RedisStore.builder().url(redis.url()).keyPrefix("evict:").build()) {
            store.checkConnection();
            store.checkConnection(); // a check made again (periodically) does not say it again
            assertThat(store.limiter(Limit.of("l", Policy.tokenBucket(10, 10, Duration.ofMinutes(1)))).tryAcquire("c").source())
                    .isEqualTo(Source.STORE);
        }
        String lines = log.toString(StandardCharsets.UTF_8);
        assertThat(lines.lines().filter(l -> l.contains(WARNING))).singleElement().asString()
                .contains("WARN").contains("Redis store " + redis.url() + " with key prefix evict:")
                .contains("maxmemory 104857600 with maxmemory-policy allkeys-lru")
                .contains("gets its whole quota back").contains("noeviction");
    }

    @Test
    void aVolatilePolicyWarnsTooSinceEveryKeyOfTheStoreHasATtl() {
        redis.call("CONFIG", "SET", "maxmemory", "104857600");
        redis.call("CONFIG", "SET", "maxmemory-policy", "volatile-lru");
        try (RedisStore store = RedisStore.builder().url(redis.url()).build()) {
            store.checkConnection();
        }
        assertThat(log.toString(StandardCharsets.UTF_8)).contains(WARNING).contains("maxmemory-policy volatile-lru");
    }

    @Test
    void noMemoryLimitOrNoevictionIsNoWarning() {
        redis.call("CONFIG", "SET", "maxmemory-policy", "allkeys-lru"); // maxmemory 0: Redis never evicts
        try (RedisStore store = RedisStore.builder().url(redis.url()).build()) {
            store.checkConnection();
        }
        redis.call("CONFIG", "SET", "maxmemory", "104857600");
        redis.call("CONFIG", "SET", "maxmemory-policy", "noeviction");
        try (RedisStore store = RedisStore.builder().url(redis.url()).build()) {
            store.checkConnection();
        }
        assertThat(log.toString(StandardCharsets.UTF_8)).doesNotContain(WARNING);
    }

    @Test
    void theLeastAclUserWhoMayNotRunInfoPassesTheCheckWithoutAWord() {
        redis.call("CONFIG", "SET", "maxmemory", "104857600");
        redis.call("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
        List<Object> leastUser = new ArrayList<>(List.of("ACL", "SETUSER", "least", "on", ">s3cret", "resetkeys", "~rl:*",
                "resetchannels", "-@all", "+evalsha", "+eval", "+time", "+get", "+set", "+del", "+pexpire",
                "+zadd", "+zcard", "+zcount", "+zrange", "+zremrangebyscore", "+select"));
        if (redis.hasFunctions()) {
            leastUser.addAll(List.of("+fcall", "+function|load"));
        }
        redis.call(leastUser.toArray());
        try (RedisStore store = RedisStore.builder().url("redis://least:s3cret@127.0.0.1:" + redis.port()).build()) {
            store.checkConnection();
            assertThat(log.toString(StandardCharsets.UTF_8)).doesNotContain(WARNING).doesNotContain("NOPERM");

            // Given +info (as the README suggests), it warns.
            redis.call("ACL", "SETUSER", "least", "+info");
            store.checkConnection();
            assertThat(log.toString(StandardCharsets.UTF_8)).contains(WARNING);
        } finally {
            redis.call("ACL", "DELUSER", "least");
        }
    }
}
