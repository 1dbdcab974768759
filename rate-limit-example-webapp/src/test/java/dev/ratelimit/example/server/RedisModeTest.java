package dev.ratelimit.example.server;

import dev.ratelimit.Clock;
import dev.ratelimit.testing.RedisServer;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code REDIS_URL}: two instances of the example share one real {@code redis-server}, so each client
 * has one quota whichever instance it reaches; and the failure mode decides while Redis is away.
 * Real time: the limit here refills once an hour, so nothing comes back during a test.
 */
class RedisModeTest {
    private static RedisServer redis;
    @TempDir
    static Path dir;
    private static Path config;

    @BeforeAll
    static void startRedis() throws IOException {
        redis = RedisServer.start();
        config = dir.resolve("hourly.json");
        Files.writeString(config, """
                {
                  "defaultTier": "free",
                  "tierPrefixes": { "sk-free-": "free", "sk-pro-": "pro" },
                  "endpoints": [ { "method": "GET", "path": "/api/scan", "name": "scan" } ],
                  "tiers": {
                    "free": { "scan": { "algorithm": "token_bucket", "capacity": 3, "refillTokens": 1, "refillPeriod": "1h" } },
                    "pro":  { "scan": { "algorithm": "token_bucket", "capacity": 6, "refillTokens": 1, "refillPeriod": "1h" } }
                  }
                }
                """);
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @Test
    void twoInstancesSharingOneRedisGiveEachClientOneQuota() {
        Map<String, String> env = Map.of("REDIS_URL", redis.url(), "RATE_LIMIT_CONFIG", config.toString());
        try (RunningExample a = RunningExample.start(Clock.system(), env); RunningExample b = RunningExample.start(Clock.system(), env)) {
            List<String> answers = new ArrayList<>();
            for (RunningExample instance : List.of(a, b, a, b)) {
                HttpResponse<String> r = instance.get("/api/scan", "X-API-Key", "sk-free-shared");
                answers.add(r.statusCode() + " r=" + r.headers().firstValue("X-RateLimit-Remaining").orElse("-"));
            }
            HttpResponse<String> refused = b.get("/api/scan", "X-API-Key", "sk-free-shared");
            HttpResponse<String> otherClient = a.get("/api/scan", "X-API-Key", "sk-pro-other");

            assertThat(answers).containsExactly("200 r=2", "200 r=1", "200 r=0", "429 r=0");
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow())).isBetween(3590L, 3600L);
            assertThat(otherClient.statusCode()).isEqualTo(200);
            assertThat(otherClient.headers().firstValue("X-RateLimit-Remaining")).hasValue("5");
        }
    }

    @Test
    void withAClientKeySecretRedisKeysHoldTheKeyedHashOfTheClient() throws Exception {
        String secret = "example-fleet-secret-0123";
        Map<String, String> env = Map.of("REDIS_URL", redis.url(), "RATE_LIMIT_CONFIG", config.toString(),
                "RATE_LIMIT_REDIS_CLIENT_KEY_SECRET", secret);
        try (RunningExample app = RunningExample.start(Clock.system(), env)) {
            assertThat(app.get("/api/scan", "X-API-Key", "sk-free-keyed").statusCode()).isEqualTo(200);
        }
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        byte[] digest = mac.doFinal("apikey:sk-free-keyed".getBytes(StandardCharsets.UTF_8));
        String keyed = Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOf(digest, 16));
        assertThat(redis.call("KEYS", "rl:scan:*{" + keyed + "}*")).asInstanceOf(InstanceOfAssertFactories.LIST).hasSize(1);
    }

    @Test
    void twoDeploymentsWithTheirOwnKeyPrefixesKeepApartOnOneRedis() {
        Map<String, String> shop = Map.of("REDIS_URL", redis.url(), "RATE_LIMIT_CONFIG", config.toString(),
                "RATE_LIMIT_REDIS_KEY_PREFIX", "shop:");
        Map<String, String> blog = Map.of("REDIS_URL", redis.url(), "RATE_LIMIT_CONFIG", config.toString(),
                "RATE_LIMIT_REDIS_KEY_PREFIX", "blog:");
        try (RunningExample a = RunningExample.start(Clock.system(), shop); RunningExample b = RunningExample.start(Clock.system(), blog)) {
            for (int i = 0; i < 3; i++) {
                assertThat(a.get("/api/scan", "X-API-Key", "sk-free-prefixed").statusCode()).isEqualTo(200);
            }
            assertThat(a.get("/api/scan", "X-API-Key", "sk-free-prefixed").statusCode()).isEqualTo(429);
            HttpResponse<String> elsewhere = b.get("/api/scan", "X-API-Key", "sk-free-prefixed");

            assertThat(elsewhere.statusCode()).as("the other deployment's quota").isEqualTo(200);
            assertThat(elsewhere.headers().firstValue("X-RateLimit-Remaining")).hasValue("2");
        }
        assertThat(redis.call("KEYS", "shop:scan:*")).asInstanceOf(InstanceOfAssertFactories.LIST).hasSize(1);
        assertThat(redis.call("KEYS", "blog:scan:*")).asInstanceOf(InstanceOfAssertFactories.LIST).hasSize(1);
    }

    @Test
    void describesTheRedisStoreWithoutItsPasswordAndWarnsWhenItFailsTheConnectionCheck() {
        ExampleOptions options = options(Map.of("REDIS_URL", "redis://app:s3cret@127.0.0.1:" + redis.port() + "/0",
                "RATE_LIMIT_FALLBACK_SHARE", "0.5"));
        try (ExampleApp app = ExampleApp.create(options, Clock.system())) {
            assertThat(app.storeDescription()).isEqualTo("Redis redis://***@127.0.0.1:" + redis.port() + "/0, shared by every "
                    + "instance using it; while it is down: LOCAL_FALLBACK (each instance allows 0.5 of each limit); "
                    + "connection check at start-up: FAILED (see the warning)");
            assertThat(app.storeWarning()).hasValueSatisfying(warning -> assertThat(warning)
                    .startsWith("Redis store redis://***@127.0.0.1:" + redis.port() + " failed its connection check: ")
                    .contains("WRONGPASS")
                    .endsWith("; starting anyway: until Redis answers, each decision follows failure mode LOCAL_FALLBACK")
                    .doesNotContain("s3cret"));
        }
    }

    @Test
    void aStoreThatFailedItsStartUpCheckIsDegradedOnHealthAndMetricsBeforeAnyRequest() {
        Map<String, String> env = Map.of("REDIS_URL", "redis://app:wrong@127.0.0.1:" + redis.port() + "/0");
        try (RunningExample app = RunningExample.start(Clock.system(), env)) {
            assertThat(app.get("/health").body()).isEqualTo("{\"status\":\"UP\",\"store\":\"degraded\"}");
            assertThat(app.get("/metrics").body()).contains("ratelimit_store_health{state=\"degraded\"} 1.0")
                    .contains("ratelimit_store_health{state=\"up\"} 0.0");
        }
    }

    @Test
    void describesAStoreThatAnswersWithItsKeyPrefix() {
        ExampleOptions options = options(Map.of("REDIS_URL", redis.url(), "RATE_LIMIT_REDIS_KEY_PREFIX", "shop:"));
        try (ExampleApp app = ExampleApp.create(options, Clock.system())) {
            assertThat(app.storeDescription()).isEqualTo("Redis " + redis.url() + ", shared by every instance using it; "
                    + "while it is down: LOCAL_FALLBACK (each instance allows 1.0 of each limit); keys under shop:; "
                    + "connection check at start-up: passed");
            assertThat(app.storeWarning()).isEmpty();
        }
    }

    @Test
    void whileRedisIsUnreachableTheFailureModeDecides() {
        String nowhere = "redis://127.0.0.1:" + RedisServer.freePort();
        try (RunningExample fallback = RunningExample.start(Clock.system(), Map.of("REDIS_URL", nowhere));
             RunningExample closed = RunningExample.start(Clock.system(), Map.of("REDIS_URL", nowhere, "RATE_LIMIT_FAILURE_MODE", "FAIL_CLOSED"))) {
            HttpResponse<String> local = fallback.get("/api/scan", "X-API-Key", "sk-free-down");
            HttpResponse<String> refused = closed.get("/api/scan", "X-API-Key", "sk-free-down");

            assertThat(local.statusCode()).isEqualTo(200);
            assertThat(local.headers().firstValue("X-RateLimit-Remaining")).as("decided in memory").hasValue("9");
            assertThat(refused.statusCode()).isEqualTo(503);
            assertThat(refused.headers().firstValue("Retry-After")).isPresent();
        }
    }

    private static ExampleOptions options(Map<String, String> env) {
        try {
            return ExampleOptions.parse(new String[0], env);
        } catch (OptionException e) {
            throw new AssertionError(e.getMessage(), e);
        }
    }
}
