package dev.ratelimit.servlet;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ratelimit.Decision;
import dev.ratelimit.DecisionEvent;
import dev.ratelimit.Limit;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.FailureMode;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Source;
import dev.ratelimit.Undecided;
import dev.ratelimit.Verdict;
import dev.ratelimit.servlet.client.ClientIdResolver;
import dev.ratelimit.servlet.client.InvalidClientException;
import dev.ratelimit.servlet.client.TierResolver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

import static dev.ratelimit.servlet.HeadersTest.rateLimitHeaders;
import static org.assertj.core.api.Assertions.assertThat;

/** The filter's own answers: 429, 400 and 503 problem+json bodies, and what each failure mode does. */
class RefusalsTest {
    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00.250Z"));
    private final ObjectMapper json = new ObjectMapper();
    private TestServer server;

    @AfterEach
    void stop() {
        server.close();
    }

    private void start(RateLimitFilterBuilder builder) {
        server = TestServer.start(builder.clock(clock).build());
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> body(HttpResponse<String> response) throws Exception {
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        return json.readValue(response.body(), LinkedHashMap.class);
    }

    @Test
    void aRefusalSentBeforeTheRequestsBodyArrivedTellsTheClientTheConnectionCloses() throws Exception {
        start(RateLimitFilter.builder());
        server.statuses(5, 1, "POST", "/api/login");
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(10_000);
            // Only the head: the filter answers before the body arrives and the server cannot keep a
            // connection whose body it never read, so the answer must say so, or the client would send
            // its next request on a connection the server is closing (a POST is not retried).
            socket.getOutputStream().write(("POST /app/api/login HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Content-Type: application/json\r\nContent-Length: 20\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            String head = responseHead(socket.getInputStream());

            assertThat(head).startsWith("HTTP/1.1 429 ").containsIgnoringCase("\r\nConnection: close\r\n");
        }
    }

    @Test
    void aRefusedPostWithAnEmptyBodyKeepsTheConnectionForTheNextRequest() {
        start(RateLimitFilter.builder());
        server.statuses(5, 1, "POST", "/api/login");

        // Content-Length: 0 is a request without a body: nothing is left unread, so the connection is
        // kept and the request pipelined after the refusal is answered on it.
        String both = server.raw("POST /app/api/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n"
                + "GET /app/api/scan HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");

        String first = both.substring(0, both.indexOf("\r\n\r\n") + 4);
        assertThat(first).startsWith("HTTP/1.1 429 ").doesNotContainIgnoringCase("Connection: close");
        assertThat(both.split("HTTP/1\\.1 ", -1)).as("two responses on one connection").hasSize(3);
        assertThat(both.substring(both.lastIndexOf("HTTP/1.1 "))).startsWith("HTTP/1.1 200 ");
    }

    private static String responseHead(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (head.indexOf("\r\n\r\n") < 0) {
            int c = in.read();
            if (c < 0) {
                break;
            }
            head.append((char) c);
        }
        return head.toString();
    }

    @Test
    void explainsA429InProblemJsonWithoutEchoingTheKey() throws Exception {
        start(RateLimitFilter.builder());
        server.statuses(5, 1, "POST", "/api/login", "X-API-Key", "sk-free-secret-42");

        HttpResponse<String> response = server.send("POST", "/api/login", "X-API-Key", "sk-free-secret-42");

        assertThat(response.statusCode()).isEqualTo(429);
        assertThat(response.headers().firstValue("Retry-After")).hasValue("60");   // the window ends at 00:01:00
        assertThat(body(response)).containsExactlyEntriesOf(orderedMap(
                "type", "urn:dev-ratelimit:rate-limited",
                "title", "Too Many Requests",
                "status", 429,
                "detail", "Too many requests to login for tier free: 5 allowed; retry after 60 s.",
                "error", "rate_limited",
                "retry_after", 60,
                "tier", "free",
                "endpoint", "login",
                "policy", "login",
                "limit", 5));
        assertThat(response.body()).doesNotContain("secret");
    }

    @Test
    void explainsA400ForAMalformedKey() throws Exception {
        start(RateLimitFilter.builder());

        HttpResponse<String> response = server.get("/api/scan", "X-API-Key", "k".repeat(257));

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(rateLimitHeaders(response)).isEmpty();
        assertThat(body(response)).containsExactlyEntriesOf(orderedMap(
                "type", "urn:dev-ratelimit:invalid-client",
                "title", "Bad Request",
                "status", 400,
                "detail", "The X-API-Key header is longer than 256 characters.",
                "error", "invalid_api_key"));
    }

    @Test
    void refusesACostNoLimitAllowsWithADistinctProblemAndNoRetryAfter() throws Exception {
        FixedStore store = new FixedStore(limit -> new Decision(Verdict.COST_EXCEEDS_LIMIT, Source.STORE,
                limit.policies().get(0), limit.policies().get(0).limit(), 10, 0, Decision.NEVER));
        start(RateLimitFilter.builder().store(store));

        HttpResponse<String> response = server.get("/api/scan");

        assertThat(response.statusCode()).isEqualTo(429);
        assertThat(response.headers().firstValue("Retry-After")).isEmpty();
        assertThat(response.headers().firstValue("RateLimit")).hasValue("\"scan\";r=10;t=0");
        assertThat(body(response)).containsEntry("type", "urn:dev-ratelimit:cost-exceeds-limit")
                .containsEntry("error", "cost_exceeds_limit").containsEntry("limit", 10).doesNotContainKey("retry_after");
    }

    @Test
    void answers503WithRetryAfterWhenTheStoreFailsClosed() throws Exception {
        FixedStore store = new FixedStore(limit -> new Decision(Verdict.STORE_UNAVAILABLE, Source.FAIL_CLOSED,
                limit.policies().get(0), limit.policies().get(0).limit(), 0, 0, 2_500_000));
        start(RateLimitFilter.builder().store(store));

        HttpResponse<String> response = server.get("/api/scan", "X-API-Key", "sk-pro-x");

        assertThat(response.statusCode()).isEqualTo(503);
        // Only what is known without the store: no remaining, no reset.
        assertThat(rateLimitHeaders(response)).containsExactlyInAnyOrderEntriesOf(Map.of(
                "X-RateLimit-Tier", "pro",
                "RateLimit-Policy", "\"scan\";q=100;w=10",
                "Retry-After", "3"));
        assertThat(body(response)).containsExactlyEntriesOf(orderedMap(
                "type", "urn:dev-ratelimit:unavailable",
                "title", "Service Unavailable",
                "status", 503,
                "detail", "Rate limiting is temporarily unavailable; retry after 3 s.",
                "error", "rate_limit_unavailable",
                "retry_after", 3,
                "tier", "pro",
                "endpoint", "scan"));
    }

    @Test
    void passesAFailOpenDecisionOnWithoutNumbersItDoesNotKnow() {
        FixedStore store = new FixedStore(limit -> new Decision(Verdict.ALLOWED, Source.FAIL_OPEN,
                limit.policies().get(0), limit.policies().get(0).limit(), limit.policies().get(0).limit(), 0, 0));
        start(RateLimitFilter.builder().store(store));

        HttpResponse<String> response = server.get("/api/scan");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(rateLimitHeaders(response)).containsExactlyInAnyOrderEntriesOf(Map.of(
                "X-RateLimit-Tier", "free",
                "RateLimit-Policy", "\"scan\";q=10;w=10"));
    }

    @Test
    void passesTheRequestOnWhenTheStoreThrowsAndTheFilterFailsOpen() {
        FixedStore store = new FixedStore(limit -> {
            throw new IllegalStateException("connection lost while deciding apikey:sk-pro-secret");
        });
        start(RateLimitFilter.builder().store(store));

        HttpResponse<String> response = server.get("/api/scan", "X-API-Key", "sk-pro-secret");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("ok GET REQUEST /api/scan");
        assertThat(rateLimitHeaders(response)).isEmpty();
    }

    @Test
    void answers503WhenTheStoreThrowsAndTheFilterFailsClosed() throws Exception {
        FixedStore store = new FixedStore(limit -> {
            throw new IllegalStateException("connection lost");
        });
        start(RateLimitFilter.builder().store(store).failureMode(FailureMode.FAIL_CLOSED));

        HttpResponse<String> response = server.get("/api/scan");

        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(body(response)).containsEntry("error", "rate_limit_unavailable").containsEntry("retry_after", 1);
    }

    @Test
    void aCostNoLimitAllowsAnsweredWhileTheStoreFailsClosedCarriesNoNumbers() throws Exception {
        // What the Redis store answers while Redis is down and failing closed, for a cost above a policy's limit.
        FixedStore store = new FixedStore(limit -> new Decision(Verdict.COST_EXCEEDS_LIMIT, Source.FAIL_CLOSED,
                limit.policies().get(0), limit.policies().get(0).limit(), limit.policies().get(0).limit(), 0, Decision.NEVER));
        start(RateLimitFilter.builder().store(store));

        HttpResponse<String> response = server.get("/api/scan");

        assertThat(response.statusCode()).isEqualTo(429);
        // Not decided by the store: only what is known without it, and no Retry-After.
        assertThat(rateLimitHeaders(response)).containsExactlyInAnyOrderEntriesOf(Map.of(
                "X-RateLimit-Tier", "free",
                "RateLimit-Policy", "\"scan\";q=10;w=10"));
        assertThat(body(response)).containsEntry("error", "cost_exceeds_limit").doesNotContainKey("retry_after");
    }

    @Test
    void passesOnARequestItFailedToDecideUnderLocalFallbackAsUnderFailOpen() {
        RecordingListener recorder = new RecordingListener();
        start(RateLimitFilter.builder().failureMode(FailureMode.LOCAL_FALLBACK).listener(recorder).clientIdResolver(request -> {
            throw new IllegalStateException("no principal");
        }));

        HttpResponse<String> response = server.get("/api/scan");

        // Only FAIL_CLOSED answers 503: LOCAL_FALLBACK is the store's, and the filter has no fallback of its own.
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("ok GET REQUEST /api/scan");
        assertThat(rateLimitHeaders(response)).isEmpty();
        assertThat(recorder.undecided).containsExactly("FAILURE passed");
    }

    /**
     * What a custom resolver, store or listener may throw: an exception (a checked one too, which code
     * in Kotlin or Groovy throws without declaring it), or a class missing or of another version.
     */
    static Stream<Throwable> unexpectedFailures() {
        return Stream.of(new IllegalStateException("metrics backend down"), new NullPointerException("no principal"),
                new IOException("directory service socket closed"),
                new NoClassDefFoundError("io/micrometer/core/instrument/Counter"),
                new NoSuchMethodError("'java.lang.String com.example.Principal.id()'"));
    }

    private static RuntimeException thrown(Throwable failure) {
        if (failure instanceof Error error) {
            throw error;
        }
        if (failure instanceof RuntimeException unchecked) {
            return unchecked;
        }
        throw RefusalsTest.<RuntimeException>undeclared(failure);
    }

    /** Throws {@code failure} whatever it is, as code in a language without checked exceptions does. */
    @SuppressWarnings("unchecked")
    private static <T extends Throwable> T undeclared(Throwable failure) throws T {
        throw (T) failure;
    }

    @ParameterizedTest
    @MethodSource("unexpectedFailures")
    void followsTheFailureModeWhenACustomResolverThrows(Throwable failure) {
        ClientIdResolver broken = request -> {
            throw thrown(failure);
        };
        start(RateLimitFilter.builder().clientIdResolver(broken));
        assertThat(server.get("/api/scan").statusCode()).isEqualTo(200);
        server.close();

        start(RateLimitFilter.builder().clientIdResolver(broken).failureMode(FailureMode.FAIL_CLOSED));
        assertThat(server.get("/api/scan").statusCode()).isEqualTo(503);
        assertThat(server.get("/not/limited").statusCode()).isEqualTo(200);
    }

    @ParameterizedTest
    @MethodSource("unexpectedFailures")
    void followsTheFailureModeWhenACustomTierResolverOrStoreThrows(Throwable failure) {
        TierResolver brokenTiers = clientId -> {
            throw thrown(failure);
        };
        FixedStore brokenStore = new FixedStore(limit -> {
            throw thrown(failure);
        });
        start(RateLimitFilter.builder().tierResolver(brokenTiers));
        assertThat(server.get("/api/scan").statusCode()).isEqualTo(200);
        server.close();
        start(RateLimitFilter.builder().store(brokenStore));
        assertThat(server.get("/api/scan").statusCode()).isEqualTo(200);
        server.close();

        start(RateLimitFilter.builder().tierResolver(brokenTiers).failureMode(FailureMode.FAIL_CLOSED));
        assertThat(server.get("/api/scan").statusCode()).isEqualTo(503);
        server.close();
        start(RateLimitFilter.builder().store(brokenStore).failureMode(FailureMode.FAIL_CLOSED));
        assertThat(server.get("/api/scan").statusCode()).isEqualTo(503);
    }

    @ParameterizedTest
    @MethodSource("unexpectedFailures")
    void ignoresAListenerThatThrows(Throwable failure) {
        RateLimitListener throwing = new RateLimitListener() {
            @Override
            public void onLimitBound(String tier, String endpoint, Limit limit) {
                throw thrown(failure); // when the filter is built: it still starts
            }

            @Override
            public void onDecision(DecisionEvent event) {
                throw thrown(failure);
            }
        };
        start(RateLimitFilter.builder().listener(throwing));

        HttpResponse<String> response = server.get("/api/scan");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("X-RateLimit-Remaining")).hasValue("9");
    }

    @ParameterizedTest
    @MethodSource("unexpectedFailures")
    void aListenerThatThrowsOnAnUndecidedRequestChangesNoAnswer(Throwable failure) {
        RateLimitListener throwing = new RateLimitListener() {
            @Override
            public void onUndecided(Undecided reason, boolean passedOn) {
                throw thrown(failure);
            }
        };
        ClientIdResolver breaksOnDemand = request -> {
            if (request.getHeader("X-Break") != null) {
                throw new IllegalStateException("no principal");
            }
            if (request.getHeader("X-Principal") == null) {
                throw new InvalidClientException("invalid_principal", "No principal.");
            }
            return "user:" + request.getHeader("X-Principal");
        };
        start(RateLimitFilter.builder().listener(throwing).clientIdResolver(breaksOnDemand).failureMode(FailureMode.FAIL_CLOSED));

        assertThat(server.get("/api/scan").statusCode()).isEqualTo(400);
        HttpResponse<String> failed = server.get("/api/scan", "X-Break", "1");
        assertThat(failed.statusCode()).isEqualTo(503);
        assertThat(failed.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(server.get("/api/scan", "X-Principal", "ada").statusCode()).isEqualTo(200);
    }

    @Test
    void aListenerWarningEveryRequestDoesNotSilenceTheWarningThatRequestsWentUndecided() {
        RateLimitListener throwing = new RateLimitListener() {
            @Override
            public void onDecision(DecisionEvent event) {
                throw new IllegalStateException("metrics backend down");
            }
        };
        ClientIdResolver breaksOnDemand = request -> {
            if (request.getHeader("X-Break") != null) {
                throw new IllegalStateException("no principal");
            }
            return "ip:" + request.getRemoteAddr();
        };
        String logged = StderrLog.during(() -> {
            start(RateLimitFilter.builder().listener(throwing).clientIdResolver(breaksOnDemand).failureMode(FailureMode.FAIL_CLOSED));
            assertThat(server.get("/api/scan").statusCode()).isEqualTo(200);
            assertThat(server.get("/api/scan", "X-Break", "1").statusCode()).isEqualTo(503);
        });
        assertThat(logged).contains("RateLimitListener.onDecision threw java.lang.IllegalStateException");
        assertThat(logged).contains("RateLimitFilter could not decide a request: java.lang.IllegalStateException");
    }

    @Test
    void bindsEveryTierAndEndpointOnceAtBuildNeverPerRequest() {
        FixedStore store = new FixedStore(limit -> new Decision(Verdict.ALLOWED, Source.STORE,
                limit.policies().get(0), 1, 1, 0, 0));
        start(RateLimitFilter.builder().store(store));
        assertThat(store.binds).isEqualTo(9);   // 3 tiers x 3 endpoints; unmatched is unlimited

        server.statuses(20, 4, "GET", "/api/scan");

        assertThat(store.binds).isEqualTo(9);
    }

    private static Map<String, Object> orderedMap(Object... keysAndValues) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            out.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return out;
    }
}
