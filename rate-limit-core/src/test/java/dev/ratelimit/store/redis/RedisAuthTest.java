package dev.ratelimit.store.redis;

import dev.ratelimit.Decision;
import dev.ratelimit.FailureMode;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import dev.ratelimit.StoreHealth;
import dev.ratelimit.testing.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisSentinelClient;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Passwords as production sets them: {@code requirepass} given as {@code redis://:password@}, a wrong
 * one (the failure mode answers; no log line, exception or {@code toString} shows a password), and
 * Sentinel with passwords on the master and on the sentinels themselves.
 */
class RedisAuthTest {
    private static final String PASSWORD = "Pa55-for-the-master";
    private static final String WRONG = "Wr0ng-guess-at-it";
    private static final String SENTINEL_PASSWORD = "Pa55-for-the-sentinels";
    private static final Limit LIMIT = Limit.of("auth", Policy.fixedWindow(5, Duration.ofDays(1)));

    private final ByteArrayOutputStream log = new ByteArrayOutputStream();
    private final List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
    private PrintStream stderr;

    @BeforeEach
    void captureLog() {
        // slf4j-simple writes to whatever System.err is at the time of each line.
        stderr = System.err;
        System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restoreLog() {
        System.setErr(stderr);
    }

    @Test
    void requirepassInTheUrlDecidesInItsDatabaseAndAWrongPasswordIsNeverShown() {
        try (RedisServer redis = RedisServer.start()) {
            redis.call("CONFIG", "SET", "requirepass", PASSWORD);
            String host = "127.0.0.1:" + redis.port();
            try (RedisStore store = store("redis://:" + PASSWORD + "@" + host + "/3")) {
                RateLimiter limiter = store.limiter(LIMIT);
                assertSources(limiter, Source.STORE, Source.STORE);
                assertThat(limiter.tryAcquire("client").remaining()).isEqualTo(2);
                assertThat(store.toString()).contains("redis://***@" + host + "/3").doesNotContain(PASSWORD);
            }
            assertThat(keys(redis.port(), PASSWORD, 0)).as("database 0").isZero();
            assertThat(keys(redis.port(), PASSWORD, 3)).as("database 3, from the URL").isEqualTo(1);

            for (String url : List.of("redis://:" + WRONG + "@" + host, "redis://default:" + WRONG + "@" + host, "redis://" + host)) {
                try (RedisStore store = store(url)) {
                    assertSources(store.limiter(LIMIT), Source.FAIL_CLOSED, Source.FAIL_CLOSED, Source.FAIL_CLOSED);
                    assertThat(store.health()).isNotEqualTo(StoreHealth.UP);
                    assertThat(store.toString()).doesNotContain(WRONG);
                }
            }
        }
        assertThat(errors).isNotEmpty().allSatisfy(e -> assertThat(stackTrace(e))
                .containsAnyOf("WRONGPASS", "NOAUTH").doesNotContain(PASSWORD).doesNotContain(WRONG));
        assertThat(log.toString(StandardCharsets.UTF_8)).contains("WRONGPASS").contains("NOAUTH")
                .doesNotContain(PASSWORD).doesNotContain(WRONG);
    }

    @Test
    void anEmptyPasswordWithoutAUserLogsInAsNoOneAndWithAUserAsThatUser() {
        // ":@" (an empty variable in a URL template, say) against a server without a password, whose
        // AUTH "" alone would be refused ("called without any password configured"), and a user
        // without a password, as ACL's nopass users are: each logs in and decides in Redis.
        try (RedisServer redis = RedisServer.start()) {
            redis.call("ACL", "SETUSER", "limiter", "on", "nopass", "~*", "+@all");
            String host = "127.0.0.1:" + redis.port();
            for (String url : List.of("redis://:@" + host, "redis://limiter:@" + host, "redis://default:@" + host)) {
                try (RedisStore store = store(url)) {
                    assertSources(store.limiter(LIMIT), Source.STORE, Source.STORE);
                }
            }
        }
        assertThat(errors).isEmpty();
    }

    @Test
    void sentinelMasterPasswordComesFromTheUrlAndSentinelsWithAPasswordNeedAClientOfYourOwn() {
        try (RedisServer master = RedisServer.start();
             RedisServer sentinel = RedisServer.startSentinel(master, "ratelimit")) {
            sentinel.call("SENTINEL", "SET", "ratelimit", "auth-pass", PASSWORD);
            master.call("CONFIG", "SET", "requirepass", PASSWORD);
            String url = "redis-sentinel://:" + PASSWORD + "@127.0.0.1:" + sentinel.port() + "/ratelimit/3";
            try (RedisStore store = store(url)) {
                assertSources(store.limiter(LIMIT), Source.STORE);
            }
            assertThat(keys(master.port(), PASSWORD, 0)).as("database 0").isZero();
            assertThat(keys(master.port(), PASSWORD, 3)).as("database 3, from the URL").isEqualTo(1);

            // The sentinels now require a password too (requirepass in sentinel.conf): a URL has one
            // password, the master's, and the store asks the sentinels without one.
            sentinel.call("ACL", "SETUSER", "default", "resetpass", ">" + SENTINEL_PASSWORD);
            try (RedisStore store = store(url)) {
                assertThatThrownBy(store::checkConnection).as("the start-up check says what Jedis does not")
                        .hasMessageContaining("All sentinels down").hasMessageEndingWith("(or they need a password or TLS, "
                                + "which a redis-sentinel:// URL cannot give them: pass a RedisSentinelClient of your own to client(...))");
                assertSources(store.limiter(LIMIT), Source.FAIL_CLOSED, Source.FAIL_CLOSED);
                assertThat(store.health()).isNotEqualTo(StoreHealth.UP);
            }
            assertThat(errors).isNotEmpty().allSatisfy(e -> assertThat(stackTrace(e)).doesNotContain(PASSWORD))
                    .anySatisfy(e -> assertThat(e).hasMessageContaining("All sentinels down")); // Jedis' words for NOAUTH

            // The documented way: a Sentinel client of your own, with the sentinels' password.
            try (RedisSentinelClient client = RedisSentinelClient.builder().masterName("ratelimit")
                    .sentinels(Set.of(new HostAndPort("127.0.0.1", sentinel.port())))
                    .clientConfig(DefaultJedisClientConfig.builder().password(PASSWORD).database(3).build())
                    .sentinelClientConfig(DefaultJedisClientConfig.builder().password(SENTINEL_PASSWORD).build())
                    .build();
                 RedisStore store = RedisStore.builder().client(client).failureMode(FailureMode.FAIL_CLOSED).build()) {
                RateLimiter limiter = store.limiter(LIMIT);
                assertSources(limiter, Source.STORE);
                assertThat(limiter.tryAcquire("client").remaining()).as("the state the URL's store left in database 3").isEqualTo(2);
            }
        }
        assertThat(log.toString(StandardCharsets.UTF_8)).doesNotContain(PASSWORD).doesNotContain(SENTINEL_PASSWORD);
    }

    private RedisStore store(String url) {
        return RedisStore.builder().url(url).failureMode(FailureMode.FAIL_CLOSED).listener(new RateLimitListener() {
            @Override
            public void onStoreError(Throwable e) {
                errors.add(e);
            }
        }).connectTimeout(Duration.ofSeconds(1)).readTimeout(Duration.ofSeconds(1)).build();
    }

    private static void assertSources(RateLimiter limiter, Source... sources) {
        for (Source expected : sources) {
            Decision d = limiter.tryAcquire("client");
            assertThat(d.source()).isEqualTo(expected);
        }
    }

    private static long keys(int port, String password, int db) {
        try (Jedis jedis = new Jedis(new HostAndPort("127.0.0.1", port),
                DefaultJedisClientConfig.builder().password(password).database(db).build())) {
            return jedis.dbSize();
        }
    }

    private static String stackTrace(Throwable e) {
        StringWriter text = new StringWriter();
        e.printStackTrace(new PrintWriter(text));
        return text.toString();
    }
}
