package dev.ratelimit.servlet;

import dev.ratelimit.ManualClock;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tag;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link LenientPathProperties} in an embedded Tomcat 11: generated path spellings through Tomcat's default
 * connector and through the two lenient settings for an encoded slash ({@code encodedSolidusHandling}
 * {@code decode} and {@code passthrough}): never a 5xx, and whatever the spelling, a request the
 * {@code /api/*} or {@code /api/scan} servlet answered carries rate-limit headers, and one the scan servlet
 * answered was charged to scan. Tagged {@code tomcat}: it runs in the build's Tomcat execution.
 */
@Tag("tomcat")
class TomcatPathProperties {
    private static final List<Tomcat> servers = new ArrayList<>();
    private static final List<String> names = new ArrayList<>();
    private static final List<Integer> ports = new ArrayList<>();

    @BeforeContainer
    static void start() throws Exception {
        for (String handling : List.of("reject", "decode", "passthrough")) {
            Path base = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "tomcat-paths-");
            Files.createDirectories(base.resolve("webapps"));
            Tomcat tomcat = new Tomcat();
            tomcat.setBaseDir(base.toString());
            tomcat.setPort(0);
            Connector connector = tomcat.getConnector();
            connector.setProperty("address", "127.0.0.1");
            connector.setEncodedSolidusHandling(handling);
            Context context = tomcat.addContext(TestServer.CONTEXT, base.toString());
            for (List<String> servlet : RoutedPaths.SERVLETS) {
                Tomcat.addServlet(context, servlet.get(0), new RoutedPaths.Named(servlet.get(0)));
                context.addServletMapping(servlet.get(1), servlet.get(0));
            }
            FilterDef def = new FilterDef();
            def.setFilterName("rateLimit");
            def.setFilter(RateLimitFilter.builder().clock(new ManualClock(Instant.parse("2026-01-01T00:00:00.250Z")))
                    .config(RoutedPaths.config()).build());
            context.addFilterDef(def);
            FilterMap map = new FilterMap();
            map.setFilterName("rateLimit");
            map.addURLPattern("/*");
            context.addFilterMap(map);
            tomcat.start();
            servers.add(tomcat);
            names.add(" (encodedSolidusHandling " + handling + ")");
            ports.add(connector.getLocalPort());
        }
    }

    @AfterContainer
    static void stop() throws Exception {
        for (Tomcat tomcat : servers) {
            tomcat.stop();
            tomcat.destroy();
        }
    }

    @Provide
    Arbitrary<String> paths() {
        return RoutedPaths.spellings();
    }

    @Property(tries = 1000)
    void onlyTheAllowlistedServletAnswersUnlimitedAndTheScanServletIsAlwaysChargedToScan(@ForAll("paths") String path) {
        for (int i = 0; i < servers.size(); i++) {
            RoutedPaths.assertCountedWhereServed(HttpCalls.raw(ports.get(i), RoutedPaths.get(path)), path + names.get(i));
        }
    }
}
