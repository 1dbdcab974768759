package dev.ratelimit.servlet;

import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.config.Allowlist;
import dev.ratelimit.config.EndpointRule;
import dev.ratelimit.config.RateLimitConfig;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.http.UriCompliance;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Jetty with a lenient URI compliance ({@link UriCompliance#LEGACY}, for applications that take
 * {@code %2F} in a path) routes an ambiguous URI such as {@code /api%2Fscan} by its decoded path, to
 * the servlet of {@code /api/scan}, yet its {@code getServletPath()} refuses to answer for that
 * request. The filter must still charge such a request to the endpoint it reaches.
 */
class AmbiguousUriTest {
    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00.250Z"));
    private TestServer server;

    /** The application's scan servlet, mapped exactly; it never asks for its servlet path. */
    static final class ScanServlet extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            resp.getWriter().write("scanned");
        }
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"/api%2Fscan", "/api/x/%2e%2e/scan", "/%2e/api/scan", "/x/%u002e%u002e/api/scan"})
    void aRequestJettyRoutesToALimitedServletDespiteItsAmbiguousSpellingIsChargedToThatEndpoint(String spelling) {
        start();

        for (int i = 1; i <= 10; i++) {
            String response = get(spelling);
            assertThat(response).startsWith("HTTP/1.1 200 ").endsWith("scanned").contains("X-RateLimit-Remaining: " + (10 - i));
        }

        assertThat(get(spelling)).startsWith("HTTP/1.1 429 ");
        assertThat(get("/api/scan")).startsWith("HTTP/1.1 429 ");
    }

    @ParameterizedTest
    @ValueSource(strings = {"/;x/../api/scan", "/api/;x/../scan"})
    void dotsClimbOutOfAnEmptySegmentAsJettyResolvesThemSoTheRequestIsChargedToTheEndpointItReaches(String spelling) {
        // RFC 3986 and Jetty: "/;x/.." is an empty segment (its parameter removed) and the ".." that leaves it.
        // Dropping the empty segment first climbed out of the context path instead, and the request passed uncounted.
        start();

        for (int i = 1; i <= 10; i++) {
            assertThat(get(spelling)).startsWith("HTTP/1.1 200 ").endsWith("scanned").contains("X-RateLimit-Remaining: " + (10 - i));
        }

        assertThat(get(spelling)).startsWith("HTTP/1.1 429 ");
    }

    @Test
    void anEncodedSlashAfterDotsClimbsNothingSoTheRequestIsNotChargedToTheEndpointItDoesNotReach() {
        start();

        // Jetty resolves dot segments before it decodes %2F: "..%2Fapi" is one segment, and the request goes to "/".
        assertThat(get("/x/..%2Fapi/scan")).doesNotContain("X-RateLimit-Limit");
        assertThat(get("/api/scan")).contains("X-RateLimit-Remaining: 9");
    }

    @ParameterizedTest
    @ValueSource(strings = {"/api/scan%2F", "/api%2F%2Fscan", "/api/%2Fscan", "/api/scan%2F%2F"})
    void anEncodedSlashThatOnlyAddsAnEmptySegmentOrATrailingSlashIsChargedLikeTheSameSlashUnencoded(String spelling) {
        // /api/scan/ and /api//scan count as /api/scan; spelled with %2F they reach the same servlet.
        start("/api/*");

        for (int i = 1; i <= 10; i++) {
            assertThat(get(spelling)).startsWith("HTTP/1.1 200 ").endsWith("scanned").contains("X-RateLimit-Remaining: " + (10 - i));
        }

        assertThat(get(spelling)).startsWith("HTTP/1.1 429 ");
        assertThat(get("/api/scan/")).startsWith("HTTP/1.1 429 ");
    }

    @ParameterizedTest
    @CsvSource({"/api/*, /api/scan/..%2F..%2Fhealth", "/api/*, /api/..%2Fhealth", "/api/*, /api/x/%2e%2e%2F%2e%2e%2Fhealth",
            "/, /api/scan/..%2F..%2Fhealth", "/, /api/..%2Fhealth", "/, /api/x/%2e%2e%2F%2e%2e%2Fhealth"})
    void withAmbiguousUrisDecodedForServletsDotsBeforeAnEncodedSlashCannotClimbIntoAnAllowlistedPath(String mapping, String spelling) {
        // Jetty asked to decode ambiguous URIs for the servlet API (as applications under LEGACY need, to read
        // their path info) gives /api/scan/..%2F..%2Fhealth the path info /scan/../../health (or, for the default
        // servlet, that whole servlet path), and routes it by that path, dots unresolved: to the servlet at
        // /api/* or /, which /api/** limits, not to /health.
        RateLimitConfig config = RateLimitConfig.builder()
                .endpoint(EndpointRule.of("*", "/api/**", "api"))
                .limit("free", "api", Policy.fixedWindow(3, Duration.ofMinutes(1)))
                .allowlist(new Allowlist(List.of("/health"), List.of()))
                .build();
        ServletContextHandler context = new ServletContextHandler(TestServer.CONTEXT);
        context.getServletHandler().setDecodeAmbiguousURIs(true);
        context.addServlet(new ServletHolder("scan", new ScanServlet()), mapping);
        if (!mapping.equals("/")) {
            context.addServlet(new ServletHolder("app", new AppServlet()), "/");
        }
        context.addFilter(new FilterHolder(RateLimitFilter.builder().clock(clock).config(config).build()), "/*",
                EnumSet.of(DispatcherType.REQUEST));
        server = TestServer.start(context, UriCompliance.LEGACY);

        for (int i = 1; i <= 3; i++) {
            assertThat(get(spelling)).startsWith("HTTP/1.1 200 ").endsWith("scanned").contains("X-RateLimit-Remaining: " + (3 - i));
        }

        assertThat(get(spelling)).startsWith("HTTP/1.1 429 ");
        assertThat(get("/health")).startsWith("HTTP/1.1 200 ").doesNotContain("X-RateLimit");
    }

    @ParameterizedTest
    @ValueSource(strings = {"/api/x%2F..%2Fscan", "/api/x/y%2F..%2F..%2Fscan"})
    void withAmbiguousUrisDecodedForServletsDotsAfterAnEncodedSlashClimbWithinTheServletToTheEndpointItServes(String spelling) {
        // The servlet at /api/* gets the path info /x/../scan: resolved within it, as a servlet that resolves its
        // path info serves it, that is /api/scan.
        start("/api/*", true);

        for (int i = 1; i <= 10; i++) {
            assertThat(get(spelling)).startsWith("HTTP/1.1 200 ").endsWith("scanned").contains("X-RateLimit-Remaining: " + (10 - i));
        }

        assertThat(get(spelling)).startsWith("HTTP/1.1 429 ");
        assertThat(get("/api/scan")).startsWith("HTTP/1.1 429 ");
    }

    private void start() {
        start("/api/scan");
    }

    private void start(String scanMapping) {
        start(scanMapping, false);
    }

    /** The scan servlet at {@code scanMapping}, the app at {@code /}; Jetty decoding ambiguous URIs for the servlet API if asked. */
    private void start(String scanMapping, boolean decodeAmbiguousUris) {
        ServletContextHandler context = new ServletContextHandler(TestServer.CONTEXT);
        context.getServletHandler().setDecodeAmbiguousURIs(decodeAmbiguousUris);
        context.addServlet(new ServletHolder("scan", new ScanServlet()), scanMapping);
        context.addServlet(new ServletHolder("app", new AppServlet()), "/");
        FilterHolder filter = new FilterHolder(RateLimitFilter.builder().clock(clock).build());
        context.addFilter(filter, "/*", EnumSet.of(DispatcherType.REQUEST));
        server = TestServer.start(context, UriCompliance.LEGACY);
    }

    private String get(String path) {
        return server.raw("GET " + TestServer.CONTEXT + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    }
}
