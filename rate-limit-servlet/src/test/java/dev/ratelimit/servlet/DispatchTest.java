package dev.ratelimit.servlet;

import dev.ratelimit.ManualClock;
import jakarta.servlet.DispatcherType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A request is counted once, whatever the application does with it afterwards. The filter is mapped
 * for every dispatcher type; it counts either REQUEST dispatches only (the default) or every type.
 */
class DispatchTest {
    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00.250Z"));
    private TestServer server;

    enum Counting { REQUEST_ONLY, EVERY_DISPATCH }

    @AfterEach
    void stop() {
        server.close();
    }

    private void start(Counting counting) {
        RateLimitFilterBuilder builder = RateLimitFilter.builder().clock(clock);
        if (counting == Counting.EVERY_DISPATCH) {
            builder.dispatcherTypes(DispatcherType.REQUEST, DispatcherType.FORWARD, DispatcherType.INCLUDE,
                    DispatcherType.ASYNC, DispatcherType.ERROR);
        }
        server = TestServer.start(builder.build());
    }

    private void assertScanCountedOnceAndReportsUntouched(String query, int expectedStatus) {
        assertScanCountedOnceAndReportsUntouched(query, expectedStatus, null);
    }

    private void assertScanCountedOnceAndReportsUntouched(String query, int expectedStatus, String expectedBody) {
        for (int i = 1; i <= 10; i++) {
            HttpResponse<String> response = server.get("/api/scan?" + query);
            assertThat(response.statusCode()).isEqualTo(expectedStatus);
            if (expectedBody != null) {
                assertThat(response.body()).isEqualTo(expectedBody);
            }
            assertThat(response.headers().firstValue("X-RateLimit-Remaining")).hasValue(String.valueOf(10 - i));
            assertThat(response.headers().firstValue("X-RateLimit-Limit")).hasValue("10");
        }
        assertThat(server.get("/api/scan?" + query).statusCode()).isEqualTo(429);
        assertThat(server.get("/api/reports").headers().firstValue("X-RateLimit-Remaining")).hasValue("99");
    }

    @ParameterizedTest
    @EnumSource(Counting.class)
    void countsAForwardedRequestOnce(Counting counting) {
        start(counting);

        assertScanCountedOnceAndReportsUntouched("forward=/api/reports", 200, "ok GET FORWARD /api/reports");
    }

    @ParameterizedTest
    @EnumSource(Counting.class)
    void countsARequestSentToALimitedErrorPageOnce(Counting counting) {
        start(counting);

        // 404 goes to the error page /api/reports, itself a limited path.
        assertScanCountedOnceAndReportsUntouched("error=404", 404);
    }

    @ParameterizedTest
    @EnumSource(Counting.class)
    void countsAnIncludingRequestOnce(Counting counting) {
        start(counting);

        assertScanCountedOnceAndReportsUntouched("include=/api/reports", 200, "ok GET INCLUDE /api/scanincluded");
    }

    @ParameterizedTest
    @EnumSource(Counting.class)
    void countsAnAsyncRedispatchedRequestOnce(Counting counting) {
        start(counting);

        assertScanCountedOnceAndReportsUntouched("async=1", 200, "ok GET ASYNC /api/scan");
    }

    @Test
    void countsAForwardFromAnUnlimitedPathOnlyWhenForwardsAreCounted() {
        start(Counting.REQUEST_ONLY);
        assertThat(server.get("/home?forward=/api/scan").headers().firstValue("X-RateLimit-Remaining")).isEmpty();
        assertThat(server.get("/api/scan").headers().firstValue("X-RateLimit-Remaining")).hasValue("9");
        server.close();

        start(Counting.EVERY_DISPATCH);
        assertThat(server.get("/home?forward=/api/scan").headers().firstValue("X-RateLimit-Remaining")).hasValue("9");
        assertThat(server.get("/api/scan").headers().firstValue("X-RateLimit-Remaining")).hasValue("8");
    }

    @Test
    void countsAnIncludeFromAnUnlimitedPathAgainstTheIncludedPathWhenIncludesAreCounted() {
        start(Counting.EVERY_DISPATCH);

        assertThat(server.get("/home?include=/api/scan").statusCode()).isEqualTo(200);

        // An included response cannot set headers, but the include was counted against /api/scan.
        assertThat(server.get("/api/scan").headers().firstValue("X-RateLimit-Remaining")).hasValue("8");
        assertThat(server.get("/api/reports").headers().firstValue("X-RateLimit-Remaining")).hasValue("99");
    }

    @Test
    void aRefusedIncludeBeforeTheIncludingPageWroteAnythingIsNoServerError() {
        start(Counting.EVERY_DISPATCH);
        server.statuses(10, 1, "GET", "/api/scan");

        // The page includes first and writes after, through its writer, as a JSP does: the refusal goes
        // in place through the writer (the output stream would make the page's getWriter() throw: a 500).
        HttpResponse<String> response = server.get("/home?include=/api/scan");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("\"status\":429").endsWith("included");
    }

    @Test
    void refusesAnAsyncDispatchToALimitedPathAfterTheApplicationTookTheWriter() {
        start(Counting.EVERY_DISPATCH);
        server.statuses(10, 1, "GET", "/api/scan");

        // An unlimited page takes the writer, then re-dispatches to a limited path that is over its limit.
        HttpResponse<String> response = server.get("/home?writer=1&async=/api/scan");

        assertThat(response.statusCode()).isEqualTo(429);
        assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(response.body()).isEqualTo("{\"type\":\"urn:dev-ratelimit:rate-limited\",\"title\":\"Too Many Requests\",\"status\":429,"
                + "\"detail\":\"Too many requests to scan for tier free: 10 allowed; retry after 1 s.\",\"error\":\"rate_limited\","
                + "\"retry_after\":1,\"tier\":\"free\",\"endpoint\":\"scan\",\"policy\":\"scan\",\"limit\":10}");
    }

    @Test
    void letsTheApplicationsOwnFailureThroughUnchanged() {
        start(Counting.REQUEST_ONLY);

        HttpResponse<String> response = server.get("/api/scan?throw=1");

        // The 500 is the application's own: the filter had passed the request on with its headers.
        assertThat(response.statusCode()).isEqualTo(500);
        assertThat(response.headers().firstValue("X-RateLimit-Remaining")).hasValue("9");
    }
}
