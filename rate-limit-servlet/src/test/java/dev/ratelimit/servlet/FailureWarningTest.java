package dev.ratelimit.servlet;

import dev.ratelimit.FailureMode;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.RateLimitStore;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.servlet.client.ClientIdResolver;
import dev.ratelimit.servlet.client.TierResolver;
import dev.ratelimit.store.memory.MemoryStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.UndeclaredThrowableException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The warnings operators read: what failed, what became of the request, and a trust setting that hands out quotas. */
class FailureWarningTest {
    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00.250Z"));
    private TestServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** The warning left by one request to a limited path through a filter whose resolver throws {@code failure}. */
    private String warningOfOneFailure(RateLimitFilterBuilder builder, RuntimeException failure) {
        ClientIdResolver broken = request -> {
            throw failure;
        };
        server = TestServer.start(builder.clientIdResolver(broken).clock(clock).build());
        return StderrLog.during(() -> server.get("/api/scan"));
    }

    @Test
    void aFailureWarningSaysTheRequestWasAnswered503WhenFailingClosed() {
        String warning = warningOfOneFailure(RateLimitFilter.builder().failureMode(FailureMode.FAIL_CLOSED), new IllegalStateException());

        assertThat(warning).contains("RateLimitFilter could not decide a request: java.lang.IllegalStateException at ")
                .contains("; answered 503 (failure mode FAIL_CLOSED)\n");
    }

    @Test
    void aFailureWarningSaysTheRequestPassedOnWhenFailingOpenOrInShadowMode() {
        assertThat(warningOfOneFailure(RateLimitFilter.builder(), new IllegalStateException()))
                .contains("; passed on unlimited (failure mode FAIL_OPEN)\n");
        server.close();
        assertThat(warningOfOneFailure(RateLimitFilter.builder().failureMode(FailureMode.FAIL_CLOSED).shadow(true), new IllegalStateException()))
                .contains("; passed on unlimited (failure mode FAIL_CLOSED, shadow mode)\n");
    }

    @Test
    void aFailureWarningNamesTheCheckedExceptionThatCameWrappedAsUndeclared() {
        // What a dynamic proxy (or Kotlin code called through one) throws for a checked exception it may not declare.
        String warning = warningOfOneFailure(RateLimitFilter.builder(), new UndeclaredThrowableException(new IOException("directory down")));

        assertThat(warning).contains("could not decide a request: java.io.IOException").doesNotContain("UndeclaredThrowableException");
        server.close();
        // Without a cause there is nothing else to name.
        assertThat(warningOfOneFailure(RateLimitFilter.builder(), new UndeclaredThrowableException(null)))
                .contains("could not decide a request: java.lang.reflect.UndeclaredThrowableException at ");
    }

    @Test
    void aResolverReturningNullOrAnEmptyIdIsAFailureNamedInTheWarningAndNeverReachesTheTierResolver() {
        List<String> tiersAsked = new ArrayList<>();
        TierResolver tiers = clientId -> {
            tiersAsked.add(clientId);
            return "free";
        };
        ClientIdResolver broken = request -> request.getHeader("X-Empty") != null ? "" : null;
        server = TestServer.start(RateLimitFilter.builder().clientIdResolver(broken).tierResolver(tiers).clock(clock).build());
        String warning = StderrLog.during(() -> assertThat(server.get("/api/scan").statusCode()).isEqualTo(200));
        assertThat(warning).contains("RateLimitFilter could not decide a request: dev.ratelimit.servlet.BrokenExtension: ClientIdResolver "
                        + broken.getClass().getName() + " returned null; return an id such as ip:<address> (ClientIdResolver.ip), "
                        + "or throw InvalidClientException for a 400 at ")
                .contains("; passed on unlimited (failure mode FAIL_OPEN)\n");
        server.close();

        server = TestServer.start(RateLimitFilter.builder().clientIdResolver(broken).tierResolver(tiers)
                .failureMode(FailureMode.FAIL_CLOSED).clock(clock).build());
        clock.advance(Duration.ofMinutes(1)); // past the last warning's minute
        warning = StderrLog.during(() -> assertThat(server.get("/api/scan", "X-Empty", "1").statusCode()).isEqualTo(503));
        assertThat(warning).contains(" returned an empty id; ").contains("; answered 503 (failure mode FAIL_CLOSED)\n");
        assertThat(tiersAsked).isEmpty();
    }

    @Test
    void trustingEveryAddressAsAProxyIsWarnedOfAtBuildTrustingSomeIsNot() {
        assertThat(StderrLog.during(() -> RateLimitFilter.builder().trustedProxies("0.0.0.0/0").build().destroy()))
                .contains("RateLimitFilter: trusted proxies include 0.0.0.0/0, every address");
        assertThat(StderrLog.during(() -> RateLimitFilter.builder().trustedProxies("10.0.0.0/8").build().destroy())).doesNotContain("trusted proxies");
        assertThat(StderrLog.during(() -> RateLimitFilter.builder().build().destroy())).doesNotContain("trusted proxies");
    }

    @Test
    void theWarningOfAFilterFromInitParamsNamesTheFilterAsItsOtherLinesDo() {
        RateLimitFilter filter = new RateLimitFilter();
        assertThat(StderrLog.during(() -> {
            try {
                filter.init(new MapFilterConfig("trusted-proxies", "0.0.0.0/0"));
            } catch (jakarta.servlet.ServletException e) {
                throw new AssertionError(e);
            }
        })).contains("RateLimitFilter rateLimit: trusted proxies include 0.0.0.0/0, every address");
        filter.destroy();
    }

    @Test
    void aStoreThatFailsToCloseIsWarnedOfAndDestroyCompletes() {
        RateLimitStore failing = new RateLimitStore() {
            private final RateLimitStore memory = MemoryStore.builder().build();

            @Override
            public RateLimiter limiter(Limit limit) {
                return memory.limiter(limit);
            }

            @Override
            public void close() {
                throw new IllegalStateException("connection pool already closed");
            }
        };
        RateLimitFilter filter = RateLimitFilter.builder().ownedStore(failing).build();

        assertThat(StderrLog.during(filter::destroy)).contains("closing the rate-limit store failed: java.lang.IllegalStateException at ")
                .doesNotContain("connection pool already closed");
    }
}
