package dev.ratelimit.servlet;

import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.config.EndpointRule;
import dev.ratelimit.config.RateLimitConfig;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterRegistration;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.webapp.WebAppContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URISyntaxException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** The two ways users register the filter, each deployed on a real Jetty. */
class RegistrationTest {
    private TestServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static WebAppContext webapp(String directory) throws URISyntaxException {
        WebAppContext webapp = new WebAppContext();
        webapp.setContextPath(TestServer.CONTEXT);
        webapp.setBaseResourceAsPath(Path.of(RegistrationTest.class.getResource("/" + directory).toURI()));
        webapp.setParentLoaderPriority(true);
        return webapp;
    }

    @Test
    void webXmlDeclarationReadsItsInitParams() throws Exception {
        server = TestServer.start(webapp("webapp"));

        // trusted-proxies 127.0.0.0/8: the forwarded address is the client; config: 3 per hour for free.
        String[] client = {"X-Forwarded-For", "203.0.113.9"};
        for (int remaining = 2; remaining >= 0; remaining--) {
            HttpResponse<String> ok = server.get("/api/scan", client);
            assertThat(ok.statusCode()).isEqualTo(200);
            assertThat(ok.headers().firstValue("X-RateLimit-Remaining")).hasValue(String.valueOf(remaining));
            // header-style x: no IETF fields
            assertThat(ok.headers().firstValue("RateLimit-Policy")).isEmpty();
        }
        HttpResponse<String> refused = server.get("/api/scan", client);
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.headers().firstValue("Retry-After").map(Long::parseLong)).hasValueSatisfying(
                seconds -> assertThat(seconds).isBetween(3500L, 3600L));   // one token an hour, on the system clock
        assertThat(server.get("/api/scan", "X-Forwarded-For", "203.0.113.10").statusCode()).isEqualTo(200);

        // api-key-header X-Key, max-api-key-length 32
        assertThat(server.get("/api/scan", "X-Key", "sk-pro-1").headers().firstValue("X-RateLimit-Tier")).hasValue("pro");
        assertThat(server.get("/api/scan", "X-Key", "sk-pro-" + "9".repeat(30)).statusCode()).isEqualTo(400);
        // the configuration's allowlist
        assertThat(server.get("/health").headers().firstValue("X-RateLimit-Tier")).isEmpty();
    }

    @Test
    void webXmlDeclarationWithAnInvalidInitParamKeepsTheApplicationFromServing() throws Exception {
        WebAppContext webapp = webapp("webapp-invalid");
        server = TestServer.start(webapp);

        assertThat(webapp.isAvailable()).isFalse();
        assertThat(webapp.getUnavailableException()).hasStackTraceContaining(
                "init-param header-style=\"sideways\": must be x, ietf or both");
        assertThat(server.get("/api/scan").statusCode()).isEqualTo(503);
    }

    @Test
    void codeRegistrationThroughServletContextAddFilter() {
        ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00.250Z"));
        server = TestServer.start(context -> context.addEventListener(new ServletContextListener() {
            @Override
            public void contextInitialized(ServletContextEvent event) {
                RateLimitFilter filter = RateLimitFilter.builder().clock(clock).trustedProxies("127.0.0.0/8").build();
                event.getServletContext().addFilter("rateLimit", filter)
                        .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), false, "/*");
            }
        }));

        assertThat(server.statuses(5, 1, "POST", "/api/login", "X-Forwarded-For", "198.51.100.3")).containsOnly(200);
        HttpResponse<String> sixth = server.send("POST", "/api/login", "X-Forwarded-For", "198.51.100.3");
        assertThat(sixth.statusCode()).isEqualTo(429);
        assertThat(sixth.headers().firstValue("RateLimit")).hasValue("\"login\";r=0;t=60");
        assertThat(sixth.headers().firstValue("Retry-After")).hasValue("60");
    }

    @Test
    void theReadmesCodeRegistrationFindsRateLimitsJsonInTheWebApplication(@TempDir Path webappDir) throws Exception {
        // A web application as the README's "Register it in code" describes it: its listener (RateLimitSetup,
        // the README's code) declared in web.xml, rate-limits.json (the README's) in WEB-INF/classes, and the
        // library outside the application (as in a container's shared lib, or here the test class path).
        String readme = Files.readString(Path.of("../README.md"));
        Path classes = Files.createDirectories(webappDir.resolve("WEB-INF/classes"));
        Files.writeString(classes.resolve("rate-limits.json"), codeBlock(readme, "## Configuration", "json"));
        Files.writeString(webappDir.resolve("WEB-INF/web.xml"), """
                <?xml version="1.0" encoding="UTF-8"?>
                <web-app xmlns="https://jakarta.ee/xml/ns/jakartaee" version="6.0">
                  <listener><listener-class>dev.ratelimit.servlet.RateLimitSetup</listener-class></listener>
                  <servlet><servlet-name>app</servlet-name><servlet-class>dev.ratelimit.servlet.AppServlet</servlet-class></servlet>
                  <servlet-mapping><servlet-name>app</servlet-name><url-pattern>/</url-pattern></servlet-mapping>
                </web-app>
                """);
        WebAppContext webapp = new WebAppContext();
        webapp.setContextPath(TestServer.CONTEXT);
        webapp.setBaseResourceAsPath(webappDir);
        server = TestServer.start(webapp);

        assertThat(webapp.isAvailable()).as("deployed, not failed with %s", webapp.getUnavailableException()).isTrue();
        assertThat(server.statuses(10, 1, "GET", "/api/scan", "X-API-Key", "sk-free-demo")).containsOnly(200);
        HttpResponse<String> eleventh = server.get("/api/scan", "X-API-Key", "sk-free-demo");
        assertThat(eleventh.statusCode()).isEqualTo(429);
        assertThat(eleventh.headers().firstValue("RateLimit-Policy")).hasValue("\"scan\";q=10;w=10");
        assertThat(server.get("/health").headers().firstValue("X-RateLimit-Tier")).as("the README's allowlist").isEmpty();
    }

    @Test
    void theReadmeShowsExactlyTheCodeRegistrationDeployedHere() throws Exception {
        String source = Files.readString(Path.of("src/test/java/dev/ratelimit/servlet/RateLimitSetup.java"));
        String code = source.substring(source.indexOf("// README:begin") + "// README:begin".length(), source.indexOf("// README:end"));
        assertThat(normalized(codeBlock(Files.readString(Path.of("../README.md")), "### Register it in code", "java")))
                .contains(normalized(code));
    }

    /** The first {@code lang} code block after {@code heading} in {@code readme}. */
    private static String codeBlock(String readme, String heading, String lang) {
        int start = readme.indexOf("```" + lang + "\n", readme.indexOf(heading)) + lang.length() + 4;
        return readme.substring(start, readme.indexOf("```", start));
    }

    private static String normalized(String code) {
        return code.strip().lines().map(String::strip).filter(line -> !line.isEmpty()).collect(Collectors.joining("\n"));
    }

    @Test
    void codeRegistrationAsDocumentedLetsAnAsyncServletStartAsyncAndCountsItOnce() {
        server = TestServer.start(context -> context.addEventListener(new ServletContextListener() {
            @Override
            public void contextInitialized(ServletContextEvent event) {
                // As the README's "Register it in code" does it: without setAsyncSupported the container
                // refuses startAsync() behind the filter with a 500, where web.xml's <async-supported> works.
                FilterRegistration.Dynamic rateLimit = event.getServletContext().addFilter("rateLimit", RateLimitFilter.builder().build());
                rateLimit.setAsyncSupported(true);
                rateLimit.addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST, DispatcherType.ASYNC), false, "/*");
            }
        }));

        HttpResponse<String> response = server.get("/api/scan?async=1");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("ok GET ASYNC /api/scan");
        assertThat(response.headers().firstValue("X-RateLimit-Remaining")).hasValue("9");
        assertThat(server.get("/api/scan").headers().firstValue("X-RateLimit-Remaining")).hasValue("8");
    }

    @Test
    void aRuleWrittenWithTheContextPathInFrontIsWarnedOfAtStartUp() {
        // The test app is deployed at /app: a rule /app/api/scan would match /app/app/api/scan only.
        RateLimitConfig config = RateLimitConfig.builder()
                .endpoint(EndpointRule.of("GET", "/app/api/scan", "scan")).endpoint(EndpointRule.of("GET", "/api/login", "login"))
                .endpoint(EndpointRule.of("GET", "/app", "home"))
                .limit("free", "scan", Policy.fixedWindow(3, Duration.ofMinutes(1)))
                .limit("free", "home", Policy.fixedWindow(3, Duration.ofMinutes(1)))
                .limit("free", "login", Policy.fixedWindow(3, Duration.ofMinutes(1))).build();
        String logged = StderrLog.during(() -> server = TestServer.start(RateLimitFilter.builder().config(config).build()));
        assertThat(logged).contains("RateLimitFilter rateLimit: path /app/api/scan starts with the context path /app, but paths are "
                + "matched within the application: it matches /app/app/api/scan, not /app/api/scan; write /api/scan for that");
        assertThat(logged).as("the application's root is /, not an empty path").contains("it matches /app/app, not /app; write / for that");
        assertThat(logged).doesNotContain("path /api/login");
    }

    @Test
    void aFilterWhoseMappingsOverlapCountsEachRequestOnce() {
        ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00.250Z"));
        RateLimitFilter filter = RateLimitFilter.builder().clock(clock).build();
        // One filter, two mappings that both match /api/scan (as web.xml's <url-pattern>/*</url-pattern>
        // and <url-pattern>/api/*</url-pattern> would): Jetty puts it in the chain twice.
        server = TestServer.start(context -> {
            FilterHolder holder = new FilterHolder(filter);
            holder.setName("rateLimit");
            context.addFilter(holder, "/*", EnumSet.of(DispatcherType.REQUEST));
            context.addFilter(holder, "/api/*", EnumSet.of(DispatcherType.REQUEST));
        });

        for (int remaining = 9; remaining >= 0; remaining--) {
            HttpResponse<String> ok = server.get("/api/scan");
            assertThat(ok.statusCode()).isEqualTo(200);
            assertThat(ok.headers().firstValue("X-RateLimit-Remaining")).hasValue(String.valueOf(remaining));
        }
        assertThat(server.get("/api/scan").statusCode()).isEqualTo(429);
    }

    @Test
    void twoFiltersInOneChainBothCountEvenWhenTheirIdentityHashCodesCollide() {
        // Identity hash codes are not unique: among enough instances two always share one.
        Map<Integer, RateLimitFilter> byHash = new HashMap<>();
        RateLimitFilter[] pair = null;
        for (int i = 0; i < 10_000_000 && pair == null; i++) {
            RateLimitFilter filter = new RateLimitFilter();
            RateLimitFilter earlier = byHash.putIfAbsent(System.identityHashCode(filter), filter);
            if (earlier != null) {
                pair = new RateLimitFilter[] {earlier, filter};
            }
        }
        assertThat(pair).isNotNull();
        RateLimitFilter[] filters = pair;
        byHash.clear();
        // The first allows 10 scans, the second only 3 an hour: the fourth scan is the second's to refuse.
        // Both also count forwards, so both mark the requests they count.
        server = TestServer.start(context -> {
            FilterHolder loose = new FilterHolder(filters[0]);
            loose.setName("loose");
            loose.setInitParameter("dispatcher-types", "REQUEST,FORWARD");
            context.addFilter(loose, "/*", EnumSet.of(DispatcherType.REQUEST, DispatcherType.FORWARD));
            FilterHolder strict = new FilterHolder(filters[1]);
            strict.setName("strict");
            strict.setInitParameter("dispatcher-types", "REQUEST,FORWARD");
            strict.setInitParameter("config", "classpath:configs/webxml-limits.json");
            context.addFilter(strict, "/*", EnumSet.of(DispatcherType.REQUEST, DispatcherType.FORWARD));
        });

        assertThat(server.statuses(3, 1, "GET", "/api/scan")).containsOnly(200);
        assertThat(server.get("/api/scan").statusCode()).isEqualTo(429);
    }
}
