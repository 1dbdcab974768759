package dev.ratelimit.servlet;

import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.config.EndpointRule;
import dev.ratelimit.config.RateLimitConfig;
import dev.ratelimit.store.redis.RedisStore;
import dev.ratelimit.testing.RedisServer;
import jakarta.servlet.DispatcherType;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.webapp.WebAppContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Redis-backed filters on real Jetty servers and a real redis-server started by the harness. The
 * configuration allows 3 scans an hour (free) so that no refill happens during a test.
 */
class RedisFilterTest {
    private static final String CONFIG = "classpath:configs/webxml-limits.json";
    private static RedisServer redis;
    private final List<TestServer> servers = new ArrayList<>();
    private final List<RedisStore> stores = new ArrayList<>();

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @AfterEach
    void stop() {
        servers.forEach(TestServer::close);
        stores.forEach(RedisStore::close);
        if (!redis.isRunning()) {
            redis.restart();
        }
        redis.call("FLUSHALL");
    }

    /** A filter declared like in web.xml: the no-arg constructor and init-params. */
    private TestServer serverWithInitParams(String... params) {
        TestServer server = TestServer.start(context -> {
            FilterHolder holder = new FilterHolder(RateLimitFilter.class);
            holder.setName("rateLimit");
            holder.setAsyncSupported(true);
            holder.setInitParameter("config", CONFIG);
            for (int i = 0; i < params.length; i += 2) {
                holder.setInitParameter(params[i], params[i + 1]);
            }
            context.addFilter(holder, "/*", EnumSet.of(DispatcherType.REQUEST));
        });
        servers.add(server);
        return server;
    }

    private TestServer serverWithBuilder(RedisStore store) {
        stores.add(store);
        TestServer server = TestServer.start(RateLimitFilter.builder()
                .config(dev.ratelimit.config.RateLimitConfig.fromClasspath("configs/webxml-limits.json"))
                .store(store).build());
        servers.add(server);
        return server;
    }

    private static String remaining(HttpResponse<String> response) {
        return response.headers().firstValue("X-RateLimit-Remaining").orElse("none");
    }

    @Test
    void twoServersSharingOneRedisShareEachClientsQuota() {
        TestServer first = serverWithInitParams("store", redis.url());
        TestServer second = serverWithBuilder(RedisStore.builder().url(redis.url()).build());

        assertThat(remaining(first.get("/api/scan"))).isEqualTo("2");
        assertThat(remaining(second.get("/api/scan"))).isEqualTo("1");
        assertThat(remaining(first.get("/api/scan"))).isEqualTo("0");

        HttpResponse<String> refusedBySecond = second.get("/api/scan");
        assertThat(refusedBySecond.statusCode()).isEqualTo(429);
        assertThat(refusedBySecond.headers().firstValue("Retry-After").map(Long::parseLong))
                .hasValueSatisfying(s -> assertThat(s).isBetween(3500L, 3600L));
        assertThat(first.get("/api/scan").statusCode()).isEqualTo(429);
        // A pro key has its own, larger quota on both.
        assertThat(remaining(second.get("/api/scan", "X-API-Key", "sk-pro-1"))).isEqualTo("29");
        assertThat(remaining(first.get("/api/scan", "X-API-Key", "sk-pro-1"))).isEqualTo("28");
    }

    @Test
    void keepsNeitherTheApiKeyNorTheAddressInRedisKeysWithoutAClientKeySecret() {
        TestServer server = serverWithInitParams("store", redis.url());

        assertThat(server.get("/api/scan", "X-API-Key", "sk-pro-never-in-redis").statusCode()).isEqualTo(200);
        assertThat(server.get("/api/scan").statusCode()).isEqualTo(200);

        // One key per client, named by the plain SHA-256 of the client id: nothing of the id itself.
        List<Object> keys = List.copyOf((List<?>) redis.call("KEYS", "*"));
        assertThat(keys).hasSize(2).allSatisfy(key -> assertThat(key.toString())
                .doesNotContain("sk-pro-never-in-redis").doesNotContain("apikey").doesNotContain("127.0.0.1"));
    }

    @Test
    void aClientKeySecretInitParamHashesClientsWithItAndSharesQuotaWithAStoreHoldingTheSameSecret() {
        String secret = "fleet-secret-0123456789";
        TestServer keyed = serverWithInitParams("store", redis.url(), "redis-client-key-secret", secret);
        TestServer sameSecret = serverWithBuilder(RedisStore.builder().url(redis.url()).clientKeySecret(secret).build());
        TestServer plain = serverWithInitParams("store", redis.url());

        assertThat(remaining(keyed.get("/api/scan"))).isEqualTo("2");
        assertThat(remaining(sameSecret.get("/api/scan"))).isEqualTo("1");
        // Plain SHA-256 names other keys: the same client starts afresh there.
        assertThat(remaining(plain.get("/api/scan"))).isEqualTo("2");
    }

    @Test
    void aPasswordFileInitParamLogsInWithThePasswordTheFileHoldsAtEachLogin(@TempDir Path dir) throws Exception {
        redis.call("ACL", "SETUSER", "filter", "on", ">old", "~rl:*", "+@all");
        try {
            Path secret = Files.writeString(dir.resolve("redis-password"), "old\n");
            TestServer server = serverWithInitParams("store", "redis://filter@127.0.0.1:" + redis.port(),
                    "redis-password-file", secret.toString(), "failure-mode", "FAIL_CLOSED");
            assertThat(remaining(server.get("/api/scan"))).isEqualTo("2");

            // The rotation: both passwords valid, the file replaced, the old one removed, every connection logged in again.
            redis.call("ACL", "SETUSER", "filter", ">new");
            Files.writeString(secret, "new\n");
            redis.call("ACL", "SETUSER", "filter", "<old");
            redis.call("CLIENT", "KILL", "USER", "filter");

            assertThat(remaining(server.get("/api/scan"))).as("decided on Redis, not by FAIL_CLOSED's 503").isEqualTo("1");
            assertThat(InitParamsTest.initFailure("store", "redis://filter:old@127.0.0.1:" + redis.port(), "redis-password-file", secret.toString()))
                    .contains("init-param redis-password-file=\"" + secret + "\": is set, but the url holds a password too")
                    .doesNotContain(":old@");
        } finally {
            redis.call("ACL", "DELUSER", "filter");
        }
    }

    @Test
    void aWebXmlDeclarationWithARedisUrlSharesTheQuotaWithACodeRegisteredFilter(@TempDir Path webapp) throws Exception {
        // The test webapp's web.xml, with store=memory replaced by this Redis' URL.
        Path webXml = Path.of(RedisFilterTest.class.getResource("/webapp/WEB-INF/web.xml").toURI());
        Files.createDirectories(webapp.resolve("WEB-INF"));
        Files.writeString(webapp.resolve("WEB-INF/web.xml"), Files.readString(webXml)
                .replace("<param-value>memory</param-value>", "<param-value>" + redis.url() + "</param-value>"));
        WebAppContext context = new WebAppContext();
        context.setContextPath(TestServer.CONTEXT);
        context.setBaseResourceAsPath(webapp);
        context.setParentLoaderPriority(true);
        TestServer fromWebXml = TestServer.start(context);
        servers.add(fromWebXml);
        TestServer inCode = serverWithBuilder(RedisStore.builder().url(redis.url()).build());

        // Both count the client ip:127.0.0.1 against the same Redis keys.
        assertThat(remaining(inCode.get("/api/scan"))).isEqualTo("2");
        assertThat(remaining(fromWebXml.get("/api/scan"))).isEqualTo("1");
        assertThat(remaining(inCode.get("/api/scan"))).isEqualTo("0");
        assertThat(fromWebXml.get("/api/scan").statusCode()).isEqualTo(429);
    }

    @Test
    void failClosedAnswers503WithRetryAfterWhileRedisIsDownAndRecovers() {
        TestServer server = serverWithInitParams("store", redis.url(), "failure-mode", "FAIL_CLOSED", "redis-timeout", "200ms");
        assertThat(server.get("/api/scan").statusCode()).isEqualTo(200);

        redis.kill();
        for (int i = 0; i < 8; i++) {
            HttpResponse<String> response = server.get("/api/scan");
            assertThat(response.statusCode()).isEqualTo(503);
            assertThat(response.headers().firstValue("Retry-After").map(Long::parseLong)).hasValueSatisfying(s -> assertThat(s).isPositive());
            assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(response.headers().firstValue("X-RateLimit-Remaining")).isEmpty();
            assertThat(response.body()).contains("\"error\":\"rate_limit_unavailable\"");
        }

        redis.restart();
        await().atMost(Duration.ofSeconds(10)).until(() -> server.get("/api/scan").statusCode() == 200);
    }

    @Test
    void failOpenPassesRequestsWithoutNumbersWhileRedisIsDown() {
        TestServer server = serverWithInitParams("store", redis.url(), "failure-mode", "fail-open", "redis-timeout", "200ms");

        redis.kill();
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> response = server.get("/api/scan");
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("X-RateLimit-Remaining")).isEmpty();
            assertThat(response.headers().firstValue("X-RateLimit-Tier")).hasValue("free");
        }
    }

    @Test
    void localFallbackKeepsLimitingInThisJvmWhileRedisIsDown() {
        TestServer server = serverWithInitParams("store", redis.url(), "redis-timeout", "200ms", "redis-key-prefix", "app1:");

        redis.kill();
        assertThat(server.statuses(3, 1, "GET", "/api/scan")).containsOnly(200);
        assertThat(server.get("/api/scan").statusCode()).isEqualTo(429);
    }

    @Test
    void localFallbackHeadersOfACompositeDescribeTheShareOfEveryPolicy() {
        // An hourly window and a bucket of 10 refilled at 1/s; a quarter of each while Redis is unreachable:
        // 250 an hour, and 2 tokens refilled at 1 per 4 s (its time to refill from empty is 8 s, not 10 s).
        ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
        TestServer server = unreachableRedisScan(clock, 0.25, Policy.fixedWindow(1000, Duration.ofHours(1)),
                Policy.tokenBucket(10, 1, Duration.ofSeconds(1)));

        HttpResponse<String> first = server.get("/api/scan");
        assertThat(first.statusCode()).isEqualTo(200);
        // The bucket's share (1 token left) is closest to rejecting: its item is "scan-1". Every item is
        // the share this instance enforces: a client keeping to 1000 an hour would be refused after 250.
        assertThat(first.headers().firstValue("X-RateLimit-Limit")).hasValue("2");
        assertThat(first.headers().firstValue("RateLimit")).hasValue("\"scan-1\";r=1;t=4");
        assertThat(first.headers().firstValue("RateLimit-Policy")).hasValue("\"scan\";q=250;w=3600, \"scan-1\";q=2;w=8");

        server.get("/api/scan");
        HttpResponse<String> refused = server.get("/api/scan");
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.body()).contains("\"policy\":\"scan-1\"");
    }

    @Test
    void aClientKeepingToTheFallbacksAdvertisedPolicyIsRefusedOnlyBeyondIt() {
        // 4 an hour and 2 a second; half of each while Redis is unreachable: 2 an hour and 1 a second.
        ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
        TestServer server = unreachableRedisScan(clock, 0.5, Policy.fixedWindow(4, Duration.ofHours(1)),
                Policy.fixedWindow(2, Duration.ofSeconds(1)));

        HttpResponse<String> first = server.get("/api/scan");
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue("RateLimit-Policy")).hasValue("\"scan\";q=2;w=3600, \"scan-1\";q=1;w=1");

        // One request a second: within the advertised 1 a second, and the second of the advertised 2 an hour.
        clock.advance(Duration.ofSeconds(1));
        assertThat(server.get("/api/scan").statusCode()).isEqualTo(200);
        clock.advance(Duration.ofSeconds(1));
        HttpResponse<String> third = server.get("/api/scan");
        assertThat(third.statusCode()).as("the third in the hour, beyond q=2").isEqualTo(429);
        assertThat(third.headers().firstValue("Retry-After")).hasValue("3598");
        assertThat(third.body()).contains("\"policy\":\"scan\"");
    }

    /**
     * A server limiting GET /api/scan of the free tier to {@code policies}, on a Redis store whose Redis
     * is never there: every decision is the local fallback's, with {@code share} of each policy.
     */
    private TestServer unreachableRedisScan(ManualClock clock, double share, Policy... policies) {
        RateLimitConfig config = RateLimitConfig.builder()
                .endpoint(EndpointRule.of("GET", "/api/scan", "scan"))
                .limit("free", "scan", policies)
                .build();
        RedisStore store = RedisStore.builder().url("redis://127.0.0.1:" + RedisServer.freePort()).clock(clock)
                .fallbackShare(share).connectTimeout(Duration.ofMillis(200)).readTimeout(Duration.ofMillis(200)).build();
        stores.add(store);
        TestServer server = TestServer.start(RateLimitFilter.builder().config(config).store(store).clock(clock).build());
        servers.add(server);
        return server;
    }

    @Test
    void aSecondInitClosesTheConnectionsOfTheStoreTheFirstInitOpened() throws Exception {
        RateLimitFilter filter = new RateLimitFilter();
        TestServer server = TestServer.start(context -> {
            FilterHolder holder = new FilterHolder(filter);
            holder.setName("rateLimit");
            holder.setInitParameter("config", CONFIG);
            holder.setInitParameter("store", redis.url());
            context.addFilter(holder, "/*", EnumSet.of(DispatcherType.REQUEST));
        });
        servers.add(server);
        assertThat(remaining(server.get("/api/scan"))).isEqualTo("2");
        Set<String> first = storeConnections();
        assertThat(first).isNotEmpty();

        filter.init(new MapFilterConfig("config", CONFIG, "store", redis.url()));

        // The new store's connection check opened a connection of its own; none of the first store's is left.
        await().atMost(Duration.ofSeconds(10)).until(() -> Collections.disjoint(storeConnections(), first));
        assertThat(storeConnections()).isNotEmpty();
        assertThat(remaining(server.get("/api/scan"))).isEqualTo("1");
    }

    /** The ids of the store's connections ({@code CLIENT SETNAME rate-limit}). */
    private static Set<String> storeConnections() {
        return String.valueOf(redis.call("CLIENT", "LIST")).lines().filter(line -> line.contains(" name=rate-limit "))
                .map(line -> line.substring(0, line.indexOf(' '))).collect(Collectors.toSet());
    }

    @Test
    void aFilterOnRedisChecksItsConnectionAtInitAndStartsEvenWhenRedisIsDown() {
        String up = StderrLog.during(() -> serverWithInitParams("store", redis.url()));
        assertThat(up).contains("INFO dev.ratelimit.servlet.RateLimitFilter - RateLimitFilter rateLimit: RedisStore["
                + redis.url() + ", failureMode=LOCAL_FALLBACK, health=UP] answered its connection check");
        // Applications sharing one Redis keep apart by their key prefixes: the store's lines name a prefix of their own.
        String app1 = StderrLog.during(() -> serverWithInitParams("store", redis.url(), "redis-key-prefix", "app1:"));
        assertThat(app1).contains("RateLimitFilter rateLimit: RedisStore[" + redis.url()
                + " with key prefix app1:, failureMode=LOCAL_FALLBACK, health=UP] answered its connection check");
        // As the store names itself in its own lines: a URL's database 0 is left out.
        String db0 = StderrLog.during(() -> serverWithInitParams("store", redis.url() + "/0"));
        assertThat(db0).contains("RateLimitFilter rateLimit: RedisStore[" + redis.url() + ", failureMode");

        redis.kill();
        String password = "Pa55-never-logged";
        String url = redis.url().replace("redis://", "redis://:" + password + "@");
        String down = StderrLog.during(() -> {
            TestServer server = serverWithInitParams("store", url, "failure-mode", "FAIL_OPEN", "redis-timeout", "100ms");
            assertThat(server.get("/api/scan").statusCode()).isEqualTo(200);
        });
        assertThat(down).contains("WARN dev.ratelimit.servlet.RateLimitFilter - RateLimitFilter rateLimit: Redis store "
                        + url.replace(":" + password + "@", "***@") + " failed its connection check: ")
                .contains("Connection refused")
                .contains("; starting anyway: until Redis answers, each decision follows failure mode FAIL_OPEN")
                .doesNotContain(password);
        String app1Down = StderrLog.during(() -> serverWithInitParams("store", redis.url(), "redis-key-prefix", "app1:",
                "redis-timeout", "100ms"));
        assertThat(app1Down).contains("RateLimitFilter rateLimit: Redis store " + redis.url()
                + " with key prefix app1: failed its connection check: ");
    }

    @Test
    void neverTurnsAnUnreachableRedisIntoA500() {
        redis.kill();
        TestServer server = serverWithInitParams("store", redis.url(), "failure-mode", "FAIL_CLOSED", "redis-timeout", "100ms");

        assertThat(server.statuses(20, 4, "GET", "/api/scan")).containsOnly(503);
    }
}
