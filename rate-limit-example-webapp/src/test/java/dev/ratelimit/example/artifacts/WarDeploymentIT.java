package dev.ratelimit.example.artifacts;

import org.eclipse.jetty.ee10.webapp.WebAppContext;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import dev.ratelimit.testing.RedisServer;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.ZipFile;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged WAR deployed into a Jetty 12 (ee10) container as any Servlet 6 container would: its
 * {@code web.xml} registers the filter with init-params, its own {@code WEB-INF/lib} supplies the
 * library. Real time: the burst is checked exactly, the refill only to happen.
 */
class WarDeploymentIT {
    private static final Path WAR = Path.of("target", "rate-limit-example.war");
    private final HttpClient client = HttpClient.newHttpClient();
    private Server server;
    private String base;

    @BeforeEach
    void deploy() throws Exception {
        server = deployWar(null);
        base = baseOf(server);
    }

    @AfterEach
    void undeploy() throws Exception {
        server.stop();
    }

    /** A Jetty server with the WAR at {@code /example}; {@code overrideWebXml} (or null) overrides its web.xml. */
    static Server deployWar(Path overrideWebXml) throws Exception {
        assertThat(WAR).as("run the package phase first (mvn verify does)").isRegularFile();
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        // The WAR brings slf4j-api without a backend (the container's choice): its log here is SLF4J's NOP.
        WebAppContext webapp = new WebAppContext(WAR.toAbsolutePath().toString(), "/example");
        if (overrideWebXml != null) {
            webapp.addOverrideDescriptor(overrideWebXml.toString());
        }
        server.setHandler(webapp);
        server.start();
        return server;
    }

    static String baseOf(Server server) {
        return "http://127.0.0.1:" + ((ServerConnector) server.getConnectors()[0]).getLocalPort() + "/example";
    }

    @Test
    void theWarCarriesTheLibraryButNoContainerNorLoggingBackend() throws Exception {
        List<String> entries = new ArrayList<>();
        try (ZipFile zip = new ZipFile(WAR.toFile())) {
            zip.stream().forEach(e -> entries.add(e.getName()));
        }

        assertThat(entries).contains("WEB-INF/web.xml", "WEB-INF/classes/dev/ratelimit/example/api/ApiServlet.class",
                "WEB-INF/lib/rate-limit-core-0.1.0-SNAPSHOT.jar", "WEB-INF/lib/rate-limit-servlet-0.1.0-SNAPSHOT.jar");
        assertThat(entries).noneMatch(e -> e.startsWith("WEB-INF/lib/jetty-") || e.startsWith("WEB-INF/lib/jakarta.servlet-api")
                || e.startsWith("WEB-INF/lib/slf4j-simple") || e.startsWith("WEB-INF/classes/dev/ratelimit/example/server/"));
        assertThat(Files.size(WAR)).isLessThan(Files.size(JarProcess.JAR));
    }

    @Test
    void servesTheApiBehindTheFilterDeclaredInWebXml() throws Exception {
        List<HttpResponse<String>> burst = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            burst.add(get("/api/scan", "sk-free-war"));
        }
        HttpResponse<String> refused = null;
        for (int i = 0; i < 30 && refused == null; i++) {
            HttpResponse<String> r = get("/api/scan", "sk-free-war");
            refused = r.statusCode() == 429 ? r : null;
        }

        assertThat(burst).allMatch(r -> r.statusCode() == 200 && r.body().equals("{\"status\":\"scanning\"}"));
        assertThat(burst.get(0).headers().firstValue("X-RateLimit-Remaining")).hasValue("9");
        assertThat(burst.get(0).headers().firstValue("X-RateLimit-Tier")).hasValue("free");
        assertThat(refused).as("a 429 once the burst of 10 is spent").isNotNull();
        assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    }

    @Test
    void healthAndOtherTiersWorkInTheWarToo() throws Exception {
        HttpResponse<String> health = get("/health", null);
        HttpResponse<String> pro = get("/api/reports", "sk-pro-war");

        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body()).isEqualTo("{\"status\":\"UP\"}");
        assertThat(health.headers().firstValue("X-RateLimit-Limit")).isEmpty();
        assertThat(pro.headers().firstValue("X-RateLimit-Limit")).hasValue("1000");
        assertThat(pro.headers().firstValue("RateLimit-Policy")).hasValue("\"reports\";q=1000;w=3600");
    }

    @Test
    void anyOtherPathOrMethodIsA404AsInTheJarNeverA501() throws Exception {
        // Paths Jetty's webdefault gives its JSP servlet too (which would answer 500, 405 or 501 here).
        for (String[] call : new String[][] {{"PATCH", "/"}, {"FROB", "/nothing"}, {"GET", "/nothing"}, {"GET", "/foo.jsp"},
                {"GET", "/health.jspf"}, {"GET", "/X.JSP"}, {"POST", "/login.jspx"}, {"PATCH", "/a.xsp"}}) {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(base + call[1]))
                    .method(call[0], HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());

            assertThat(r.statusCode()).as("%s %s", call[0], call[1]).isEqualTo(404);
            assertThat(r.body()).isEqualTo("{\"error\":\"not found\"}");
        }
    }

    @Test
    void twoDeploymentsWhoseWebXmlPointsAtOneRedisShareEachClientsQuota(@TempDir Path dir) throws Exception {
        try (RedisServer redis = RedisServer.start()) {
            // Three scans an hour, so that nothing refills during the test.
            Path tiers = dir.resolve("tiers.json");
            Files.writeString(tiers, """
                    {
                      "defaultTier": "free",
                      "tierPrefixes": { "sk-free-": "free" },
                      "endpoints": [ { "method": "GET", "path": "/api/scan", "name": "scan" } ],
                      "tiers": { "free": { "scan": { "algorithm": "token_bucket", "capacity": 3, "refillTokens": 1, "refillPeriod": "1h" } } }
                    }
                    """);
            Path override = dir.resolve("override-web.xml");
            Files.writeString(override, """
                    <?xml version="1.0" encoding="UTF-8"?>
                    <web-app xmlns="https://jakarta.ee/xml/ns/jakartaee" version="6.0">
                      <filter>
                        <filter-name>rateLimit</filter-name>
                        <filter-class>dev.ratelimit.servlet.RateLimitFilter</filter-class>
                        <init-param><param-name>config</param-name><param-value>%s</param-value></init-param>
                        <init-param><param-name>store</param-name><param-value>%s</param-value></init-param>
                        <init-param><param-name>failure-mode</param-name><param-value>FAIL_CLOSED</param-value></init-param>
                        <init-param><param-name>redis-timeout</param-name><param-value>2s</param-value></init-param>
                      </filter>
                    </web-app>
                    """.formatted(tiers, redis.url()));
            Server a = deployWar(override);
            Server b = deployWar(override);
            try {
                List<String> answers = new ArrayList<>();
                for (Server deployment : List.of(a, b, a, b)) {
                    HttpRequest scan = HttpRequest.newBuilder(URI.create(baseOf(deployment) + "/api/scan"))
                            .header("X-API-Key", "sk-free-war-redis").build();
                    HttpResponse<String> r = client.send(scan, HttpResponse.BodyHandlers.ofString());
                    answers.add(r.statusCode() + " r=" + r.headers().firstValue("X-RateLimit-Remaining").orElse("-"));
                }

                // Alone, each deployment would have let its two requests through.
                assertThat(answers).containsExactly("200 r=2", "200 r=1", "200 r=0", "429 r=0");
            } finally {
                a.stop();
                b.stop();
            }
        }
    }

    private HttpResponse<String> get(String path, String key) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path));
        if (key != null) {
            b.header("X-API-Key", key);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
