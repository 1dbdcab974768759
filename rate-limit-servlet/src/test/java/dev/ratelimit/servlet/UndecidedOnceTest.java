package dev.ratelimit.servlet;

import dev.ratelimit.Decision;
import dev.ratelimit.DecisionEvent;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Source;
import dev.ratelimit.Verdict;
import jakarta.servlet.DispatcherType;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One request, one listener event: a request the filter could not decide is reported once, however
 * often it passes through the filter, and never as a decision as well.
 */
class UndecidedOnceTest {
    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00.250Z"));
    private final RecordingListener recorder = new RecordingListener();
    private final List<DecisionEvent> events = recorder.decisions;
    /** Each request the filter could not decide, as "REASON passed" or "REASON refused". */
    private final List<String> undecided = recorder.undecided;
    private TestServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** One filter, mapped twice (as web.xml /* and /api/*): Jetty chains it twice, REQUEST dispatches only (the default). */
    private void startOverlapping(RateLimitFilter filter) {
        server = TestServer.start(context -> {
            FilterHolder holder = new FilterHolder(filter);
            holder.setName("rateLimit");
            context.addFilter(holder, "/*", EnumSet.of(DispatcherType.REQUEST));
            context.addFilter(holder, "/api/*", EnumSet.of(DispatcherType.REQUEST));
        });
    }

    @Test
    void aShadowedMalformedKeyThroughOverlappingMappingsIsReportedOnce() {
        startOverlapping(RateLimitFilter.builder().clock(clock).listener(recorder).shadow(true).build());

        HttpResponse<String> r = server.get("/api/scan", "X-API-Key", "sk-pro-a b");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(undecided).containsExactly("INVALID_CLIENT passed");
    }

    @Test
    void aResolverFailureThroughOverlappingMappingsIsReportedOnceAndTheResolverAskedOnce() {
        AtomicInteger asked = new AtomicInteger();
        startOverlapping(RateLimitFilter.builder().clock(clock).listener(recorder).clientIdResolver(request -> {
            asked.incrementAndGet();
            throw new IllegalStateException("a resolver that fails");
        }).build());

        HttpResponse<String> r = server.get("/api/scan");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(undecided).containsExactly("FAILURE passed");
        assertThat(asked).hasValue(1);
    }

    private void startEveryDispatch(RateLimitFilterBuilder builder) {
        server = TestServer.start(builder.clock(clock).listener(recorder).dispatcherTypes(DispatcherType.REQUEST,
                DispatcherType.FORWARD, DispatcherType.INCLUDE, DispatcherType.ASYNC, DispatcherType.ERROR).build());
    }

    @Test
    void aShadowedMalformedKeySentToALimitedErrorPageIsReportedOnce() {
        startEveryDispatch(RateLimitFilter.builder().shadow(true));

        // 404 goes to the error page /api/reports, a limited path.
        HttpResponse<String> r = server.get("/api/scan?error=404", "X-API-Key", "sk-pro-a b");

        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(undecided).containsExactly("INVALID_CLIENT passed");
    }

    @Test
    void aShadowedMalformedKeyForwardedToALimitedPathIsReportedOnceAndPasses() {
        startEveryDispatch(RateLimitFilter.builder().shadow(true));

        HttpResponse<String> r = server.get("/api/scan?forward=/api/reports", "X-API-Key", "sk-pro-a b");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(undecided).containsExactly("INVALID_CLIENT passed");
    }

    @Test
    void aResolverFailureBeforeAnAsyncRedispatchIsReportedOnce() {
        startEveryDispatch(RateLimitFilter.builder().clientIdResolver(request -> {
            throw new IllegalStateException("a resolver that fails");
        }));

        HttpResponse<String> r = server.get("/api/scan?async=1");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(undecided).containsExactly("FAILURE passed");
    }

    @Test
    void aStoreReturningNoDecisionIsUndecidedNotAlsoADecision() {
        // A custom store that returns no decision (a bug of its own) must not be reported as a
        // decision and then, when the filter fails on it, as undecided too.
        server = TestServer.start(RateLimitFilter.builder().clock(clock).listener(recorder)
                .store(new FixedStore(limit -> null)).build());

        HttpResponse<String> r = server.get("/api/scan");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(events).isEmpty();
        assertThat(undecided).containsExactly("FAILURE passed");
    }

    @Test
    void aStoreReturningADecisionWithoutAPolicyIsUndecidedNotAlsoADecision() {
        // Without a policy the decision has no limit to report or answer with: a listener recording
        // it would fail on it, and so would the headers, reporting the request a second time.
        server = TestServer.start(RateLimitFilter.builder().clock(clock).listener(recorder)
                .store(new FixedStore(limit -> new Decision(Verdict.ALLOWED, Source.STORE, null, 10, 9, 0, 0))).build());

        HttpResponse<String> r = server.get("/api/scan");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(events).isEmpty();
        assertThat(undecided).containsExactly("FAILURE passed");
    }
}
