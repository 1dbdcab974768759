package dev.ratelimit.store.redis;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import dev.ratelimit.testing.RedisBinary;
import dev.ratelimit.testing.RedisServer;
import dev.ratelimit.testing.Resp;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Decisions are FCALLs of the Redis Functions library where the server runs it (Redis 7+), and
 * EVALSHA scripts where it cannot (Redis 6.2, or an ACL denying FCALL): the same decisions either way,
 * and either is loaded again when Redis forgets it.
 */
class RedisDecisionCallsTest {
    private static final Limit LIMIT = Limit.of("calls", Policy.fixedWindow(5, Duration.ofDays(400)));

    @Test
    void onRedis7DecisionsAreFunctionCalls() {
        try (RedisServer redis = RedisServer.start()) {
            assumeRedis7(redis);
            try (RedisStore store = RedisStore.builder().url(redis.url()).build()) {
                assertRemaining(store.limiter(LIMIT), 4, 3, 2);
            }
            assertThat(redis.calls("cmdstat_evalsha")).isZero();
            assertThat(redis.calls("cmdstat_fcall")).isGreaterThanOrEqualTo(3);
            assertThat(String.valueOf(redis.call("FUNCTION", "LIST", "LIBRARYNAME", "ratelimit_*"))).contains("ratelimit_decide_");
        }
    }

    @Test
    void theLibraryIsLoadedAgainAfterRedisForgetsIt() {
        try (RedisServer redis = RedisServer.start()) {
            assumeRedis7(redis);
            try (RedisStore store = RedisStore.builder().url(redis.url()).build()) {
                RateLimiter limiter = store.limiter(LIMIT);
                assertRemaining(limiter, 4);
                redis.call("FUNCTION", "FLUSH");
                redis.call("SCRIPT", "FLUSH");
                assertRemaining(limiter, 3);
            }
            assertThat(redis.calls("cmdstat_evalsha")).isZero();
        }
    }

    @Test
    void aCrowdThatFindsTheLibraryGoneLoadsItOnceAndDecidesOnRedis() throws Exception {
        int callers = 64;
        Limit crowd = Limit.of("crowd", Policy.fixedWindow(1_000, Duration.ofDays(400)));
        try (RedisServer redis = RedisServer.start()) {
            assumeRedis7(redis);
            // A connection each, so that every call is in Redis when it finds the library gone.
            try (RedisStore store = RedisStore.builder().url(redis.url()).pipelining(false).poolSize(callers)
                    .readTimeout(Duration.ofSeconds(5)).build()) {
                RateLimiter limiter = store.limiter(crowd);
                assertThat(limiter.tryAcquire("warm-up").source()).isEqualTo(Source.STORE);
                long loads = redis.calls("cmdstat_function|load");
                redis.call("FUNCTION", "FLUSH");
                redis.call("CLIENT", "PAUSE", 1_000, "WRITE"); // holds the crowd's FCALLs, lets them connect
                ExecutorService threads = Executors.newFixedThreadPool(callers);
                try {
                    List<Future<Decision>> decisions = new ArrayList<>();
                    for (int i = 0; i < callers; i++) {
                        String client = "client-" + i;
                        decisions.add(threads.submit(() -> limiter.tryAcquire(client)));
                    }
                    for (Future<Decision> f : decisions) {
                        assertThat(f.get().source()).isEqualTo(Source.STORE);
                    }
                } finally {
                    threads.shutdownNow();
                }
                // One load for the crowd, not one each: 64 loads of a 40 kB library held the pool's
                // connections long enough that, with the default timeouts, callers got the failure mode.
                assertThat(redis.calls("cmdstat_function|load") - loads).isEqualTo(1);
            }
        }
    }

    @Test
    void anAclThatDeniesFunctionsLeavesDecisionsToScripts() {
        try (RedisServer redis = RedisServer.start()) {
            assumeRedis7(redis);
            redis.call("ACL", "SETUSER", "limiter", "on", ">s3cret", "~*", "&*", "+@all", "-fcall", "-function");
            String url = "redis://limiter:s3cret@127.0.0.1:" + redis.port();
            try (RedisStore store = RedisStore.builder().url(url).build()) {
                assertRemaining(store.limiter(LIMIT), 4, 3, 2);
            }
            assertThat(redis.calls("cmdstat_evalsha")).isGreaterThanOrEqualTo(3);
        }
    }

    @Test
    void anAclThatDeniesOnlyFcallTurnsTheLibraryOffAtTheFirstRefusalAndLoadsNothing() {
        try (RedisServer redis = RedisServer.start()) {
            assumeRedis7(redis);
            redis.call("ACL", "SETUSER", "limiter", "on", ">s3cret", "~*", "&*", "+@all", "-fcall");
            String url = "redis://limiter:s3cret@127.0.0.1:" + redis.port();
            try (RedisStore store = RedisStore.builder().url(url).build()) {
                assertRemaining(store.limiter(LIMIT), 4, 3, 2);
            }
            assertThat(Resp.info(redis.port(), "errorstats", "errorstat_NOPERM")).as("one FCALL refused, then scripts only")
                    .isEqualTo("count=1");
            assertThat(redis.calls("cmdstat_function|load")).as("a refused FCALL is no missing library").isZero();
            assertThat(redis.calls("cmdstat_evalsha")).isGreaterThanOrEqualTo(3);
        }
    }

    @Test
    void anAclThatDeniesLoadingTheLibraryLeavesDecisionsToScripts() {
        try (RedisServer redis = RedisServer.start()) {
            assumeRedis7(redis);
            redis.call("ACL", "SETUSER", "limiter", "on", ">s3cret", "~*", "&*", "+@all", "-function");
            String url = "redis://limiter:s3cret@127.0.0.1:" + redis.port();
            try (RedisStore store = RedisStore.builder().url(url).build()) {
                assertRemaining(store.limiter(LIMIT), 4, 3, 2);
            }
            assertThat(redis.calls("cmdstat_fcall")).as("the first call, which found no library").isEqualTo(1);
            assertThat(redis.calls("cmdstat_evalsha")).isGreaterThanOrEqualTo(3);
        }
    }

    @Test
    void onRedis62DecisionsAreScriptsLoadedAgainWhenRedisForgetsThem() {
        // The redis-server bundled in embedded-redis is 6.2: no Redis Functions.
        try (RedisServer redis = RedisServer.start(RedisBinary.embedded())) {
            assertThat(redis.version()).startsWith("6.");
            try (RedisStore store = RedisStore.builder().url(redis.url()).build()) {
                RateLimiter limiter = store.limiter(LIMIT);
                assertRemaining(limiter, 4, 3);
                redis.call("SCRIPT", "FLUSH");
                assertRemaining(limiter, 2, 1);
            }
            // The first call, and the first after the flush, found no script and went again as EVAL,
            // which left the script in Redis' cache for the next EVALSHA.
            assertThat(redis.calls("cmdstat_eval")).isEqualTo(2);
            assertThat(redis.calls("cmdstat_evalsha")).isEqualTo(4);
            assertThat(redis.calls("cmdstat_script")).as("SCRIPT FLUSH only").isEqualTo(1);
        }
    }

    private static void assertRemaining(RateLimiter limiter, long... remaining) {
        for (long expected : remaining) {
            Decision d = limiter.tryAcquire("client");
            assertThat(d.source()).isEqualTo(Source.STORE);
            assertThat(d.remaining()).isEqualTo(expected);
        }
    }

    private static void assumeRedis7(RedisServer redis) {
        assumeTrue(redis.hasFunctions(), "Redis Functions need Redis 7; this redis-server is " + redis.version());
    }
}
