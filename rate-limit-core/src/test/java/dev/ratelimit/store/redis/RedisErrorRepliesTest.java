package dev.ratelimit.store.redis;

import dev.ratelimit.Decision;
import dev.ratelimit.FailureMode;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import dev.ratelimit.StoreHealth;
import dev.ratelimit.Verdict;
import dev.ratelimit.testing.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Error replies from a Redis that answers: a full Redis, a read-only replica, and keys of the store
 * overwritten by hand. Each is a Redis failure decided by the failure mode while it lasts, never an
 * exception; none turns the Redis Functions library off for good, and none locks a client out for
 * as long as a bad key lives.
 */
class RedisErrorRepliesTest {
    private static final Duration MINUTE = Duration.ofMinutes(1);

    private final List<Throwable> errors = new CopyOnWriteArrayList<>();
    private final RateLimitListener listener = new RateLimitListener() {
        @Override
        public void onStoreError(Throwable error) {
            errors.add(error);
        }
    };

    static Stream<Limit> limits() {
        return Stream.of(
                Limit.of("tb", Policy.tokenBucket(5, 1, MINUTE)),
                Limit.of("fw", Policy.fixedWindow(5, MINUTE)),
                Limit.of("swl", Policy.slidingWindowLog(5, MINUTE)),
                Limit.of("swc", Policy.slidingWindowCounter(5, MINUTE)),
                Limit.of("gcra", Policy.gcra(5, MINUTE, 5)),
                Limit.of("both", Policy.fixedWindow(5, MINUTE), Policy.slidingWindowLog(10, Duration.ofHours(1))));
    }

    @ParameterizedTest
    @MethodSource("limits")
    void aKeyOverwrittenWithAListIsReplacedRatherThanFailingTheClientForEver(Limit limit) {
        try (RedisServer redis = RedisServer.start(); RedisStore store = failClosed(redis)) {
            RateLimiter limiter = store.limiter(limit);
            limiter.tryAcquire("client");
            for (String key : keys(redis, limit)) {
                redis.call("DEL", key);
                redis.call("LPUSH", key, "not a rate-limit state");
            }

            assertThat(limiter.tryAcquire("client")).extracting(Decision::verdict, Decision::source, Decision::remaining)
                    .containsExactly(Verdict.ALLOWED, Source.STORE, 4L);
            assertThat(limiter.tryAcquire("client").remaining()).isEqualTo(3);
            assertThat(errors).isEmpty();
            assertThat(store.health()).isEqualTo(StoreHealth.UP);
            assertThat(keys(redis, limit)).allSatisfy(key -> assertThat(redis.call("TYPE", key)).isNotEqualTo("list"));
        }
    }

    @ParameterizedTest
    @MethodSource("limits")
    void aKeyOverwrittenWithGarbageOrAHugeNumberReadsAsFreshState(Limit limit) {
        for (String garbage : List.of("garbage", "123456789012345678901234567890:3")) {
            try (RedisServer redis = RedisServer.start(); RedisStore store = failClosed(redis)) {
                RateLimiter limiter = store.limiter(limit);
                limiter.tryAcquire("client");
                for (String key : keys(redis, limit)) {
                    redis.call("DEL", key);
                    redis.call("SET", key, garbage); // no TTL: it would stay for ever
                }

                assertThat(limiter.tryAcquire("client")).as(garbage)
                        .extracting(Decision::verdict, Decision::source, Decision::remaining)
                        .containsExactly(Verdict.ALLOWED, Source.STORE, 4L);
                assertThat(errors).as(garbage).isEmpty();
            }
        }
    }

    @Test
    void aFixedWindowCountWrittenAboveTheLimitByHandIsRefusedWithNoneRemainingNotMinusOne() {
        // A count the store never writes (6 of 5): taken as state (see the README's Keys), but the
        // remaining count, sent as X-RateLimit-Remaining, stays a count.
        Limit limit = Limit.of("fw", Policy.fixedWindow(5, MINUTE));
        try (RedisServer redis = RedisServer.start(); RedisStore store = failClosed(redis)) {
            RateLimiter limiter = store.limiter(limit);
            limiter.tryAcquire("client");
            String key = keys(redis, limit).get(0);
            String start = String.valueOf(redis.call("GET", key)).split(":")[0];
            redis.call("SET", key, start + ":6", "KEEPTTL");

            assertThat(limiter.tryAcquire("client")).extracting(Decision::verdict, Decision::remaining)
                    .containsExactly(Verdict.REJECTED, 0L);
        }
    }

    @Test
    void aFullRedisFailsDecisionsByTheFailureModeAndStillLoadsTheLibraryOnceItHasRoom() {
        try (RedisServer redis = RedisServer.start()) {
            assumeRedis7(redis);
            redis.call("CONFIG", "SET", "maxmemory-policy", "noeviction");
            try (RedisStore store = RedisStore.builder().url(redis.url()).failureMode(FailureMode.FAIL_OPEN).listener(listener).build()) {
                RateLimiter limiter = store.limiter(Limit.of("full", Policy.fixedWindow(5, MINUTE)));
                redis.call("CONFIG", "SET", "maxmemory", "1"); // below what Redis already uses: every write is OOM

                assertThat(limiter.tryAcquire("client").source()).isEqualTo(Source.FAIL_OPEN);
                assertThat(errors).singleElement().satisfies(e -> assertThat(e).hasMessageStartingWith("OOM"));

                redis.call("CONFIG", "SET", "maxmemory", "0");
                assertThat(limiter.tryAcquire("client")).extracting(Decision::source, Decision::remaining)
                        .containsExactly(Source.STORE, 4L);
                assertThat(store.health()).isEqualTo(StoreHealth.UP);
            }
            assertThat(redis.calls("cmdstat_evalsha")).isZero();
        }
    }

    @Test
    void aReadOnlyReplicaFailsDecisionsByTheFailureModeAndStillLoadsTheLibraryOncePromoted() {
        try (RedisServer master = RedisServer.start();
             RedisServer replica = RedisServer.start(List.of("--replicaof", "127.0.0.1", Integer.toString(master.port())))) {
            assumeRedis7(replica);
            try (RedisStore store = failClosed(replica)) {
                RateLimiter limiter = store.limiter(Limit.of("replica", Policy.fixedWindow(5, MINUTE)));

                assertThat(limiter.tryAcquire("client").verdict()).isEqualTo(Verdict.STORE_UNAVAILABLE);
                assertThat(errors).singleElement().satisfies(e -> assertThat(e).hasMessageStartingWith("READONLY"));

                replica.call("REPLICAOF", "NO", "ONE");
                assertThat(limiter.tryAcquire("client")).extracting(Decision::source, Decision::remaining)
                        .containsExactly(Source.STORE, 4L);
            }
            assertThat(replica.calls("cmdstat_evalsha")).isZero();
        }
    }

    private RedisStore failClosed(RedisServer redis) {
        return RedisStore.builder().url(redis.url()).failureMode(FailureMode.FAIL_CLOSED).listener(listener).build();
    }

    /** The store's keys of {@code limit} (of every client). */
    private static List<String> keys(RedisServer redis, Limit limit) {
        List<?> keys = (List<?>) redis.call("KEYS", "rl:" + limit.name() + ":*");
        assertThat(keys).hasSize(limit.policies().size());
        return keys.stream().map(k -> k instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(k)).toList();
    }

    private static void assumeRedis7(RedisServer redis) {
        assumeTrue(redis.hasFunctions(), "Redis Functions need Redis 7; this redis-server is " + redis.version());
    }
}
