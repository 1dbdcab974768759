package dev.ratelimit.servlet;

import dev.ratelimit.Policy;
import dev.ratelimit.config.Allowlist;
import dev.ratelimit.config.EndpointRule;
import dev.ratelimit.config.RateLimitConfig;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the path properties of both containers share ({@link LenientPathProperties}, {@link TomcatPathProperties}):
 * servlets at {@code /health} (allowlisted), {@code /api/scan}, {@code /api/*} and {@code /}, each answering
 * with its name; generated spellings of paths; and the check that wherever a spelling went, the filter
 * counted it there.
 */
final class RoutedPaths {
    private static final List<String> SEGMENTS = List.of("api", "scan", "health", "x", "..", ".", "%2e%2e", "%2e",
            "%2F", "..%2F", "%2F..", "%2e%2e%2F", "scan%2F..", "%u002e%u002e", ";x", "%3B", "", "%73can", "HEALTH",
            "%2f", "%252e%252e", "..;", ".;x", "%2E%2e", "%u002F", "%5C", "\\", "scan;x", "%00",
            ";x/..", "/..", "x//..", "%2F/..");

    /** The servlets' names and mappings. */
    static final List<List<String>> SERVLETS = List.of(List.of("health", "/health"), List.of("scan", "/api/scan"),
            List.of("api", "/api/*"), List.of("app", "/"));

    private RoutedPaths() {
    }

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

    /** {@code /api/scan} and everything else limited (so that an unlimited request stands out), {@code /health} allowlisted. */
    static RateLimitConfig config() {
        return RateLimitConfig.builder()
                .endpoint(EndpointRule.of("*", "/api/scan", "scan"))
                .endpoint(EndpointRule.of("*", "/**", "all"))
                .limit("free", "scan", Policy.fixedWindow(1_000_000_000, Duration.ofMinutes(1)))
                .limit("free", "all", Policy.fixedWindow(1_000_000_000, Duration.ofMinutes(1)))
                .allowlist(new Allowlist(List.of("/health"), List.of()))
                .build();
    }

    /** Paths of up to five generated segments, a quarter of them around the limited servlets, which random segments seldom reach. */
    static Arbitrary<String> spellings() {
        Arbitrary<String> any = Arbitraries.of(SEGMENTS).list().ofMinSize(1).ofMaxSize(5).map(segments -> "/" + String.join("/", segments));
        return Arbitraries.oneOf(any, any.map(path -> "/api" + path), any.map(path -> path + "/scan"), any.map(path -> "/api" + path + "/scan"));
    }

    /** The raw GET of {@code path} in the context {@code /app}. */
    static String get(String path) {
        return "GET " + TestServer.CONTEXT + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    }

    /**
     * Never a 5xx; a response of the {@code /api/*} or {@code /api/scan} servlet carries rate-limit headers, and
     * one of the scan servlet was charged to scan.
     */
    static void assertCountedWhereServed(String response, String what) {
        assertThat(response).as(what).doesNotStartWith("HTTP/1.1 5");
        if (response.endsWith("served by api") || response.endsWith("served by scan")) {
            assertThat(response).as(what).contains("X-RateLimit-Limit");
        }
        if (response.endsWith("served by scan")) {
            assertThat(response).as(what).contains("RateLimit-Policy: \"scan\"");
        }
    }
}
