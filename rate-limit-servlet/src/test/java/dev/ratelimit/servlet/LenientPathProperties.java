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
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.http.UriCompliance;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Generated paths through Jetty accepting ambiguous URIs ({@link UriCompliance#LEGACY}), with and without
 * {@code setDecodeAmbiguousURIs}, and through Jetty's default compliance: never a 5xx, and whatever the spelling, a request that skips the limits (no rate-limit
 * headers) is one the allowlisted servlet answered, and a request the scan servlet answered was charged to scan.
 */
class LenientPathProperties {
    private static final List<String> SEGMENTS = List.of("api", "scan", "health", "x", "..", ".", "%2e%2e", "%2e",
            "%2F", "..%2F", "%2F..", "%2e%2e%2F", "scan%2F..", "%u002e%u002e", ";x", "%3B", "", "%73can", "HEALTH",
            "%2f", "%252e%252e", "..;", ".;x", "%2E%2e", "%u002F", "%5C", "scan;x");

    private static TestServer decoding;
    private static TestServer notDecoding;
    private static TestServer strict;

    /** Answers with its own name, so a test knows which servlet a request reached. */
    static final class Named extends HttpServlet {
        private static final long serialVersionUID = 1L;
        private final String name;

        Named(String name) {
            this.name = name;
        }

        @Override
        protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            resp.getWriter().write("served by " + name);
        }
    }

    @BeforeContainer
    static void start() {
        decoding = server(UriCompliance.LEGACY, true);
        notDecoding = server(UriCompliance.LEGACY, false);
        strict = server(UriCompliance.DEFAULT, false);
    }

    private static TestServer server(UriCompliance compliance, boolean decodeAmbiguousUris) {
        ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00.250Z"));
        RateLimitConfig config = RateLimitConfig.builder()
                .endpoint(EndpointRule.of("*", "/api/scan", "scan"))
                .endpoint(EndpointRule.of("*", "/**", "all"))
                .limit("free", "scan", Policy.fixedWindow(1_000_000_000, Duration.ofMinutes(1)))
                .limit("free", "all", Policy.fixedWindow(1_000_000_000, Duration.ofMinutes(1)))
                .allowlist(new Allowlist(List.of("/health"), List.of()))
                .build();
        ServletContextHandler context = new ServletContextHandler(TestServer.CONTEXT);
        context.getServletHandler().setDecodeAmbiguousURIs(decodeAmbiguousUris);
        context.addServlet(new ServletHolder("health", new Named("health")), "/health");
        context.addServlet(new ServletHolder("scan", new Named("scan")), "/api/scan");
        context.addServlet(new ServletHolder("api", new Named("api")), "/api/*");
        context.addServlet(new ServletHolder("app", new Named("app")), "/");
        context.addFilter(new FilterHolder(RateLimitFilter.builder().clock(clock).config(config).build()), "/*",
                EnumSet.of(DispatcherType.REQUEST));
        return TestServer.start(context, compliance);
    }

    @AfterContainer
    static void stop() {
        decoding.close();
        notDecoding.close();
        strict.close();
    }

    private static String name(TestServer server) {
        return server == decoding ? " (LEGACY, decoding)" : server == notDecoding ? " (LEGACY)" : " (DEFAULT)";
    }

    @Provide
    Arbitrary<String> paths() {
        Arbitrary<String> any = Arbitraries.of(SEGMENTS).list().ofMinSize(1).ofMaxSize(5).map(segments -> "/" + String.join("/", segments));
        // Also spellings around the limited servlets, which purely random segments seldom reach.
        return Arbitraries.oneOf(any, any.map(path -> "/api" + path), any.map(path -> path + "/scan"), any.map(path -> "/api" + path + "/scan"));
    }

    @Property(tries = 1000)
    void onlyTheAllowlistedServletAnswersUnlimitedAndTheScanServletIsAlwaysChargedToScan(@ForAll("paths") String path) {
        for (TestServer server : List.of(decoding, notDecoding, strict)) {
            String response = server.raw("GET " + TestServer.CONTEXT + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            assertThat(response).as(path + name(server)).doesNotStartWith("HTTP/1.1 5");
            if (response.endsWith("served by api") || response.endsWith("served by scan")) {
                assertThat(response).as(path + name(server)).contains("X-RateLimit-Limit");
            }
            if (response.endsWith("served by scan")) {
                assertThat(response).as(path + name(server)).contains("RateLimit-Policy: \"scan\"");
            }
        }
    }
}
