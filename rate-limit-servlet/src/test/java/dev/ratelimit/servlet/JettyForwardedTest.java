package dev.ratelimit.servlet;

import dev.ratelimit.ManualClock;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.ForwardedRequestCustomizer;
import org.eclipse.jetty.server.HttpConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Instant;
import java.util.EnumSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Jetty's {@link ForwardedRequestCustomizer} (the {@code forwarded} module of a standalone Jetty) in
 * front of the filter, as the README's "Client identity and trusted proxies" describes it: as Jetty
 * ships it, it takes the left-most {@code X-Forwarded-For} address, which the client writes, so behind
 * a proxy that appends, every client picks its own quota; with its client-address headers pointed at
 * names no one sends and the filter trusting the proxy, the filter counts the address the proxy
 * appended, and the customizer still applies {@code X-Forwarded-Proto}. The free scan bucket holds 10.
 */
class JettyForwardedTest {
    private TestServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private void start(RateLimitFilterBuilder filter, ForwardedRequestCustomizer customizer) {
        HttpConfiguration http = new HttpConfiguration();
        http.addCustomizer(customizer);
        server = TestServer.start(context -> {
            FilterHolder holder = new FilterHolder(filter.build());
            context.addFilter(holder, "/*", EnumSet.of(DispatcherType.REQUEST));
            context.addServlet(new ServletHolder(new Seen()), "/seen");
        }, http);
    }

    @Test
    void asJettyShipsItTheCustomizerLetsAClientBehindAnAppendingProxyPickItsOwnAddress() {
        start(RateLimitFilter.builder(), new ForwardedRequestCustomizer());

        String warning = StderrLog.during(() -> {
            for (int i = 1; i <= 12; i++) {
                String header = "198.51.100." + i + ", 203.0.113.7";   // what the client wrote, then what the proxy appended
                assertThat(server.get("/api/scan", "X-Forwarded-For", header).statusCode()).isEqualTo(200);
            }
        });
        assertThat(warning).as("the filter sees the header name the address it was given, and says so, once for each")
                .containsOnlyOnce("RateLimitFilter: a request from 198.51.100.1 carried a forwarding header naming"
                        + " 198.51.100.1 itself: a proxy at that address missing from trusted-proxies (if it is your proxy's,"
                        + " add it, or every client behind the proxy shares its quota), a container that took the address from"
                        + " the header (Jetty's ForwardedRequestCustomizer, ");
        assertThat(server.get("/seen", "Forwarded", "for=192.0.2.9", "X-Forwarded-For", "203.0.113.7").body())
                .as("it also believes Forwarded, which the proxy passes on untouched").startsWith("192.0.2.9 ");
    }

    @Test
    void withItsClientHeadersRenamedTheFilterCountsTheAddressTheTrustedProxyAppended() {
        ForwardedRequestCustomizer customizer = new ForwardedRequestCustomizer();
        customizer.setForwardedForHeader("X-Jetty-Unused-For");
        customizer.setForwardedHeader("X-Jetty-Unused-Forwarded");
        start(RateLimitFilter.builder().trustedProxies("127.0.0.0/8").clock(new ManualClock(Instant.parse("2026-01-01T00:00:00Z"))),
                customizer);

        for (int i = 1; i <= 10; i++) {
            assertThat(server.get("/api/scan", "X-Forwarded-For", "198.51.100." + i + ", 203.0.113.7").statusCode()).isEqualTo(200);
        }
        assertThat(server.get("/api/scan", "X-Forwarded-For", "198.51.100.11, 203.0.113.7").statusCode()).isEqualTo(429);
        assertThat(server.get("/api/scan", "X-Forwarded-For", "203.0.113.8").statusCode()).isEqualTo(200);
        assertThat(server.get("/seen", "X-Forwarded-Proto", "https", "X-Forwarded-For", "198.51.100.1, 203.0.113.7").body())
                .as("the peer is still the proxy; the scheme is the one it forwarded").isEqualTo("127.0.0.1 https");
    }

    /** Answers with the peer address and scheme the application sees. */
    private static final class Seen extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            resp.getWriter().write(req.getRemoteAddr() + " " + req.getScheme());
        }
    }
}
