package dev.ratelimit.servlet;

import dev.ratelimit.ManualClock;
import jakarta.servlet.DispatcherType;
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

import java.time.Instant;
import java.util.EnumSet;
import java.util.List;

/**
 * Generated paths through Jetty accepting ambiguous URIs ({@link UriCompliance#LEGACY}), with and without
 * {@code setDecodeAmbiguousURIs}, and through Jetty's default compliance: never a 5xx, and whatever the
 * spelling, a request the {@code /api/*} or {@code /api/scan} servlet answered carries rate-limit headers,
 * and one the scan servlet answered was charged to scan ({@link RoutedPaths}).
 */
class LenientPathProperties {
    private static TestServer decoding;
    private static TestServer notDecoding;
    private static TestServer strict;

    @BeforeContainer
    static void start() {
        decoding = server(UriCompliance.LEGACY, true);
        notDecoding = server(UriCompliance.LEGACY, false);
        strict = server(UriCompliance.DEFAULT, false);
    }

    private static TestServer server(UriCompliance compliance, boolean decodeAmbiguousUris) {
        ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00.250Z"));
        ServletContextHandler context = new ServletContextHandler(TestServer.CONTEXT);
        context.getServletHandler().setDecodeAmbiguousURIs(decodeAmbiguousUris);
        for (List<String> servlet : RoutedPaths.SERVLETS) {
            context.addServlet(new ServletHolder(servlet.get(0), new RoutedPaths.Named(servlet.get(0))), servlet.get(1));
        }
        context.addFilter(new FilterHolder(RateLimitFilter.builder().clock(clock).config(RoutedPaths.config()).build()), "/*",
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
        return RoutedPaths.spellings();
    }

    @Property(tries = 1000)
    void onlyTheAllowlistedServletAnswersUnlimitedAndTheScanServletIsAlwaysChargedToScan(@ForAll("paths") String path) {
        for (TestServer server : List.of(decoding, notDecoding, strict)) {
            RoutedPaths.assertCountedWhereServed(server.raw(RoutedPaths.get(path)), path + name(server));
        }
    }
}
