package dev.ratelimit.servlet;

import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.config.Allowlist;
import dev.ratelimit.config.EndpointRule;
import dev.ratelimit.config.RateLimitConfig;
import net.jqwik.api.Arbitraries;
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
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LenientPathProperties} in an embedded Tomcat 11: generated path spellings through Tomcat's default
 * connector and through the two lenient settings for an encoded slash ({@code encodedSolidusHandling}
 * {@code decode} and {@code passthrough}): never a 5xx, and whatever the spelling, a request the
 * {@code /api/*} or {@code /api/scan} servlet answered carries rate-limit headers, and one the scan servlet
 * answered was charged to scan. Tagged {@code tomcat}: it runs in the build's Tomcat execution.
 */
@Tag("tomcat")
class TomcatPathProperties {
    private static final List<String> SEGMENTS = List.of("api", "scan", "health", "x", "..", ".", "%2e%2e", "%2e",
            "%2F", "..%2F", "%2F..", "%2e%2e%2F", "scan%2F..", ";x", "%3B", "", "%73can", "HEALTH",
            "%2f", "%252e%252e", "..;", ".;x", "%2E%2e", "%5C", "\\", "scan;x", "%00");
    private static final String CONTEXT = "/app";

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
            Context context = tomcat.addContext(CONTEXT, base.toString());
            for (String[] servlet : new String[][] {{"health", "/health"}, {"scan", "/api/scan"}, {"api", "/api/*"}, {"app", "/"}}) {
                Tomcat.addServlet(context, servlet[0], new LenientPathProperties.Named(servlet[0]));
                context.addServletMappingDecoded(servlet[1], servlet[0]);
            }
            FilterDef def = new FilterDef();
            def.setFilterName("rateLimit");
            def.setFilter(RateLimitFilter.builder().clock(new ManualClock(Instant.parse("2026-01-01T00:00:00.250Z")))
                    .config(config()).build());
            context.addFilterDef(def);
            FilterMap map = new FilterMap();
            map.setFilterName("rateLimit");
            map.addURLPatternDecoded("/*");
            context.addFilterMap(map);
            tomcat.start();
            servers.add(tomcat);
            names.add(" (encodedSolidusHandling " + handling + ")");
            ports.add(connector.getLocalPort());
        }
    }

    private static RateLimitConfig config() {
        return RateLimitConfig.builder()
                .endpoint(EndpointRule.of("*", "/api/scan", "scan"))
                .endpoint(EndpointRule.of("*", "/**", "all"))
                .limit("free", "scan", Policy.fixedWindow(1_000_000_000, Duration.ofMinutes(1)))
                .limit("free", "all", Policy.fixedWindow(1_000_000_000, Duration.ofMinutes(1)))
                .allowlist(new Allowlist(List.of("/health"), List.of()))
                .build();
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
        Arbitrary<String> any = Arbitraries.of(SEGMENTS).list().ofMinSize(1).ofMaxSize(5).map(segments -> "/" + String.join("/", segments));
        // Also spellings around the limited servlets, which purely random segments seldom reach.
        return Arbitraries.oneOf(any, any.map(path -> "/api" + path), any.map(path -> path + "/scan"), any.map(path -> "/api" + path + "/scan"));
    }

    @Property(tries = 1000)
    void onlyTheAllowlistedServletAnswersUnlimitedAndTheScanServletIsAlwaysChargedToScan(@ForAll("paths") String path) {
        for (int i = 0; i < servers.size(); i++) {
            String response = HttpCalls.raw(ports.get(i), "GET " + CONTEXT + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            assertThat(response).as(path + names.get(i)).doesNotStartWith("HTTP/1.1 5");
            if (response.endsWith("served by api") || response.endsWith("served by scan")) {
                assertThat(response).as(path + names.get(i)).contains("X-RateLimit-Limit");
            }
            if (response.endsWith("served by scan")) {
                assertThat(response).as(path + names.get(i)).contains("RateLimit-Policy: \"scan\"");
            }
        }
    }
}
