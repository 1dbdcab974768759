package dev.ratelimit.servlet;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimitStore;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.config.EndpointRule;
import dev.ratelimit.config.RateLimitConfig;
import dev.ratelimit.store.memory.MemoryStore;
import dev.ratelimit.servlet.headers.HeaderStyle;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.http.HttpHeaders;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

class HeadersTest {
    /** 2026-01-01T00:00:00.250Z: epoch second 1767225600 plus a quarter. */
    static final long EPOCH = 1_767_225_600L;
    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00.250Z"));
    private TestServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private TestServer start(RateLimitFilterBuilder builder) {
        server = TestServer.start(builder.clock(clock).build());
        return server;
    }

    static Map<String, String> rateLimitHeaders(HttpResponse<?> response) {
        Map<String, String> out = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        HttpHeaders headers = response.headers();
        headers.map().forEach((name, values) -> {
            String n = name.toLowerCase();
            if (n.startsWith("x-ratelimit") || n.startsWith("ratelimit") || n.equals("retry-after")) {
                out.put(name, String.join(",", values));
            }
        });
        return out;
    }

    @Test
    void describesTheFreeScanBucketAfterTheFirstRequest() {
        start(RateLimitFilter.builder());

        HttpResponse<String> response = server.get("/api/scan");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(rateLimitHeaders(response)).containsExactlyInAnyOrderEntriesOf(Map.of(
                "X-RateLimit-Limit", "10",
                "X-RateLimit-Remaining", "9",
                // one token missing, back after 1 s: 00:00:01.25, rounded up to the second
                "X-RateLimit-Reset", String.valueOf(EPOCH + 2),
                "X-RateLimit-Tier", "free",
                "RateLimit-Policy", "\"scan\";q=10;w=10",
                "RateLimit", "\"scan\";r=9;t=1"));
    }

    @Test
    void describesTheRejectionOfTheEleventhScanWithRetryAfter() {
        start(RateLimitFilter.builder());
        assertThat(server.statuses(10, 1, "GET", "/api/scan")).containsOnly(200);

        HttpResponse<String> response = server.get("/api/scan");

        assertThat(response.statusCode()).isEqualTo(429);
        assertThat(rateLimitHeaders(response)).containsExactlyInAnyOrderEntriesOf(Map.of(
                "X-RateLimit-Limit", "10",
                "X-RateLimit-Remaining", "0",
                // all 10 tokens missing: full again after 10 s
                "X-RateLimit-Reset", String.valueOf(EPOCH + 11),
                "X-RateLimit-Tier", "free",
                "RateLimit-Policy", "\"scan\";q=10;w=10",
                "RateLimit", "\"scan\";r=0;t=1",
                "Retry-After", "1"));
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    }

    @Test
    void namesTheProTierAndItsNumbersForAProKey() {
        start(RateLimitFilter.builder());

        HttpResponse<String> response = server.send("POST", "/api/login", "X-API-Key", "sk-pro-abc");

        assertThat(rateLimitHeaders(response)).containsExactlyInAnyOrderEntriesOf(Map.of(
                "X-RateLimit-Limit", "50",
                "X-RateLimit-Remaining", "49",
                // fixed window of a minute, epoch aligned: ends at 00:01:00
                "X-RateLimit-Reset", String.valueOf(EPOCH + 60),
                "X-RateLimit-Tier", "pro",
                "RateLimit-Policy", "\"login\";q=50;w=60",
                "RateLimit", "\"login\";r=49;t=60"));
    }

    @Test
    void givesTheWindowsEndAsResetWhileTheClockMovesDuringTheRequest() {
        // A real clock moves between the store's reading and the filter's: here one microsecond a read.
        server = TestServer.start(RateLimitFilter.builder().clock(() -> clock.advanceMicros(1).nowMicros()).build());

        HttpResponse<String> response = server.send("POST", "/api/login", "X-API-Key", "sk-pro-abc");

        // The window ends at 00:01:00 exactly; a second later would tell the client to wait for nothing.
        assertThat(rateLimitHeaders(response)).containsEntry("X-RateLimit-Reset", String.valueOf(EPOCH + 60));
    }

    @Test
    void givesTheWindowsEndAsResetWhenTheDecisionWaitedSecondsForTheStore() {
        // A Redis call queued behind a reconnect: the store reads its clock 5 s after the filter asked.
        start(RateLimitFilter.builder().store(slowStore(Duration.ofSeconds(5), Duration.ZERO)));

        HttpResponse<String> response = server.send("POST", "/api/login", "X-API-Key", "sk-pro-abc");

        // The window still ends at 00:01:00; 00:00:55 would send the client back to a refusal.
        assertThat(rateLimitHeaders(response)).containsEntry("X-RateLimit-Reset", String.valueOf(EPOCH + 60));
    }

    @Test
    void givesTheWindowsEndAsResetWhenTheAnswerTakesARoundTripToComeBack() {
        // A Redis round trip of 3 ms: the answer comes back 1.5 ms after Redis read its TIME.
        start(RateLimitFilter.builder().store(slowStore(Duration.ofNanos(1_500_000), Duration.ofNanos(1_500_000))));

        HttpResponse<String> response = server.send("POST", "/api/login", "X-API-Key", "sk-pro-abc");

        assertThat(rateLimitHeaders(response)).containsEntry("X-RateLimit-Reset", String.valueOf(EPOCH + 60));
    }

    /** An in-memory store on {@link #clock} whose decisions wait {@code before} deciding and {@code after} it. */
    private RateLimitStore slowStore(Duration before, Duration after) {
        MemoryStore memory = MemoryStore.builder().clock(clock).build();
        return limit -> new RateLimiter() {
            private final RateLimiter inner = memory.limiter(limit);

            @Override
            public Limit limit() {
                return limit;
            }

            @Override
            public Decision tryAcquire(String key, long cost) {
                clock.advance(before);
                Decision decision = inner.tryAcquire(key, cost);
                clock.advance(after);
                return decision;
            }
        };
    }

    @Test
    void roundsRetryAfterUpToWholeSecondsAndMatchesTheRateLimitT() {
        // One token, refilled every 2 s: after spending it, the wait is 2 s minus the time since.
        RateLimitConfig config = RateLimitConfig.builder()
                .endpoint(EndpointRule.of("GET", "/api/scan", "scan"))
                .limit("free", "scan", Policy.tokenBucket(1, 1, Duration.ofSeconds(2)))
                .build();
        start(RateLimitFilter.builder().config(config));
        assertThat(server.get("/api/scan").statusCode()).isEqualTo(200);

        clock.advance(Duration.ofMillis(500));
        assertThat(retryAfterAndT(server.get("/api/scan"))).containsExactly("2", "\"scan\";r=0;t=2");   // 1.5 s -> 2
        clock.advance(Duration.ofMillis(1300));
        assertThat(retryAfterAndT(server.get("/api/scan"))).containsExactly("1", "\"scan\";r=0;t=1");   // 0.2 s -> 1
        clock.advance(Duration.ofMillis(199));
        assertThat(retryAfterAndT(server.get("/api/scan"))).containsExactly("1", "\"scan\";r=0;t=1");   // 1 µs... 0.001 s -> 1
        clock.advance(Duration.ofMillis(1));
        assertThat(server.get("/api/scan").statusCode()).isEqualTo(200);
        assertThat(retryAfterAndT(server.get("/api/scan"))).containsExactly("2", "\"scan\";r=0;t=2");   // exactly 2 s -> 2
    }

    private static List<String> retryAfterAndT(HttpResponse<String> response) {
        assertThat(response.statusCode()).isEqualTo(429);
        return List.of(response.headers().firstValue("Retry-After").orElseThrow(),
                response.headers().firstValue("RateLimit").orElseThrow());
    }

    @Test
    void listsEveryPolicyOfACompositeAndDescribesTheOneClosestToRejecting() {
        RateLimitConfig config = RateLimitConfig.builder()
                .endpoint(EndpointRule.of("GET", "/api/scan", "scan"))
                .limit("free", "scan", Policy.tokenBucket(10, 10, Duration.ofSeconds(1)), Policy.fixedWindow(12, Duration.ofHours(1)))
                .build();
        start(RateLimitFilter.builder().config(config));

        HttpResponse<String> first = server.get("/api/scan");
        assertThat(first.headers().firstValue("RateLimit-Policy")).hasValue("\"scan\";q=10;w=1, \"scan-1\";q=12;w=3600");
        assertThat(first.headers().firstValue("RateLimit")).hasValue("\"scan\";r=9;t=1");
        assertThat(first.headers().firstValue("X-RateLimit-Limit")).hasValue("10");

        // After 10 at once and a full refill, the hourly window (2 left) is closest to rejecting.
        server.statuses(9, 1, "GET", "/api/scan");
        clock.advance(Duration.ofSeconds(1));
        HttpResponse<String> later = server.get("/api/scan");
        assertThat(later.statusCode()).isEqualTo(200);
        assertThat(later.headers().firstValue("RateLimit")).hasValue("\"scan-1\";r=1;t=3599");
        assertThat(later.headers().firstValue("X-RateLimit-Limit")).hasValue("12");
        assertThat(later.headers().firstValue("X-RateLimit-Remaining")).hasValue("1");
        assertThat(later.headers().firstValue("X-RateLimit-Reset")).hasValue(String.valueOf(EPOCH + 3600));

        server.get("/api/scan");
        HttpResponse<String> rejected = server.get("/api/scan");
        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(rejected.headers().firstValue("RateLimit")).hasValue("\"scan-1\";r=0;t=3599");
        assertThat(rejected.headers().firstValue("Retry-After")).hasValue("3599");
    }

    @Test
    void whenTwoPoliciesOfACompositeHaveEquallyFewLeftTheHeadersTellTheLaterReset() {
        RateLimitConfig config = RateLimitConfig.builder()
                .endpoint(EndpointRule.of("GET", "/api/scan", "scan"))
                .limit("free", "scan", Policy.tokenBucket(2, 2, Duration.ofSeconds(1)), Policy.fixedWindow(2, Duration.ofHours(1)))
                .build();
        start(RateLimitFilter.builder().config(config));

        server.get("/api/scan");
        HttpResponse<String> second = server.get("/api/scan");
        // Both have 0 left. The bucket's "t=1" would send the client back in a second, to a 429 for an hour.
        assertThat(second.headers().firstValue("RateLimit")).hasValue("\"scan-1\";r=0;t=3600");
        assertThat(second.headers().firstValue("X-RateLimit-Reset")).hasValue(String.valueOf(EPOCH + 3600));

        clock.advance(Duration.ofSeconds(1));
        assertThat(server.get("/api/scan").headers().firstValue("Retry-After")).hasValue("3599");
    }

    @Test
    void sendsOnlyTheXSetOrOnlyTheIetfSetWhenAsked() {
        start(RateLimitFilter.builder().headerStyle(HeaderStyle.X));
        assertThat(rateLimitHeaders(server.get("/api/scan")).keySet())
                .containsExactlyInAnyOrder("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "X-RateLimit-Tier");
        server.close();

        start(RateLimitFilter.builder().headerStyle(HeaderStyle.IETF));
        assertThat(rateLimitHeaders(server.get("/api/scan")).keySet()).containsExactlyInAnyOrder("RateLimit-Policy", "RateLimit");
        assertThat(server.statuses(9, 1, "GET", "/api/scan")).containsOnly(200);
        assertThat(rateLimitHeaders(server.get("/api/scan")).keySet()).containsExactlyInAnyOrder("RateLimit-Policy", "RateLimit", "Retry-After");
    }

    @Test
    void sendsNoRateLimitHeadersOnUnlimitedOrAllowlistedPaths() {
        start(RateLimitFilter.builder());

        assertThat(rateLimitHeaders(server.get("/somewhere/else"))).isEmpty();
        assertThat(rateLimitHeaders(server.get("/health"))).isEmpty();
        assertThat(server.get("/health").body()).isEqualTo("ok GET REQUEST /health");
    }
}
