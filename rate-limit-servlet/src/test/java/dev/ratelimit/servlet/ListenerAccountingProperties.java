package dev.ratelimit.servlet;

import dev.ratelimit.DecisionEvent;
import dev.ratelimit.FailureMode;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Verdict;
import dev.ratelimit.servlet.client.ClientIdResolver;
import dev.ratelimit.servlet.client.ForwardedHeader;
import dev.ratelimit.servlet.client.TrustedProxies;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Generated sequences of requests (limited and unlimited paths, good and malformed API keys, a
 * resolver that fails on demand) through a real server failing closed: each request the listener
 * hears of gives exactly one event, a decision or an undecided request, and that event says what the
 * client got (a 429 is a rejected decision, a 400 an unusable client, a 503 a failure, a 200 an
 * allowed decision, nothing, or a request passed on). What the metrics count is what clients saw.
 */
class ListenerAccountingProperties {
    /** One request: its method and path, its X-API-Key (null for none), and whether the resolver fails on it. */
    record Call(String method, String path, String apiKey, boolean breaks) {
    }

    private static final RecordingListener recorder = new RecordingListener();
    private static final List<Object> events = recorder.heard;
    private static TestServer server;
    private static ManualClock clock;

    @BeforeContainer
    static void start() {
        clock = new ManualClock(Instant.parse("2026-01-01T00:00:00.250Z"));
        ClientIdResolver standard = ClientIdResolver.apiKeyOrIp("X-API-Key", 256, TrustedProxies.none(),
                ForwardedHeader.X_FORWARDED_FOR);
        ClientIdResolver breaksOnDemand = request -> {
            if (request.getHeader("X-Break") != null) {
                throw new IllegalStateException("a resolver that fails");
            }
            return standard.resolve(request);
        };
        server = TestServer.start(RateLimitFilter.builder().clock(clock).listener(recorder).clientIdResolver(breaksOnDemand)
                .failureMode(FailureMode.FAIL_CLOSED).build());
    }

    @AfterContainer
    static void stop() {
        server.close();
    }

    @Provide
    Arbitrary<List<Call>> sequences() {
        Arbitrary<String> routes = Arbitraries.of("GET /api/scan", "GET /api/reports", "POST /api/login", "GET /api/login",
                "GET /api/other", "GET /elsewhere", "DELETE /api/scan");
        Arbitrary<String> keys = Arbitraries.of("", "sk-free-a", "sk-pro-b", "sk-enterprise-c", "sk-pro-a b", "k".repeat(257),
                "sk-frëe-d");
        return Combinators.combine(routes, keys, Arbitraries.integers().between(0, 4))
                .as((route, key, breaks) -> new Call(route.substring(0, route.indexOf(' ')), route.substring(route.indexOf(' ') + 1),
                        key.isEmpty() ? null : key, breaks == 0))
                .list().ofMinSize(1).ofMaxSize(25);
    }

    @Property(tries = 60)
    void everyLimitedRequestIsOneEventThatSaysWhatTheClientGot(@ForAll("sequences") List<Call> calls) {
        clock.advance(java.time.Duration.ofDays(1)); // every client's quota whole again: tries do not leak into each other
        for (Call call : calls) {
            int before = events.size();
            List<String> headers = new ArrayList<>();
            if (call.apiKey() != null) {
                headers.add("X-API-Key");
                headers.add(call.apiKey());
            }
            if (call.breaks()) {
                headers.add("X-Break");
                headers.add("1");
            }
            HttpResponse<String> response = server.send(call.method(), call.path(), headers.toArray(String[]::new));
            List<Object> heard = List.copyOf(events.subList(before, events.size()));

            assertThat(heard).as("events of %s", call).hasSizeLessThanOrEqualTo(1);
            if (call.method().equals("GET") && call.path().equals("/api/scan")) {
                assertThat(heard).as("a limited request is always heard of: %s", call).hasSize(1);
            }
            Object event = heard.isEmpty() ? null : heard.get(0);
            switch (response.statusCode()) {
                case 429 -> assertThat(event).isInstanceOfSatisfying(DecisionEvent.class,
                        e -> assertThat(e.decision().verdict()).isEqualTo(Verdict.REJECTED));
                case 400 -> assertThat(event).isEqualTo("INVALID_CLIENT refused");
                case 503 -> assertThat(event).isEqualTo("FAILURE refused");
                case 200, 404 -> {
                    if (event instanceof DecisionEvent e) {
                        assertThat(e.decision().allowed()).as("%s", call).isTrue();
                    } else {
                        assertThat(event).as("%s", call).isNull();
                    }
                }
                default -> throw new AssertionError("unexpected status " + response.statusCode() + " for " + call);
            }
            if (event != null && call.breaks()) {
                assertThat(event).as("the resolver failed on %s", call).isEqualTo("FAILURE refused");
            }
        }
    }
}
