package dev.ratelimit.servlet;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.config.Allowlist;
import dev.ratelimit.config.EndpointRule;
import dev.ratelimit.config.RateLimitConfig;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.ErrorPage;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.Writer;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.IntStream;

import static dev.ratelimit.servlet.HeadersTest.EPOCH;
import static dev.ratelimit.servlet.HeadersTest.rateLimitHeaders;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The filter in an embedded Apache Tomcat 11 (Servlet 6.1), registered programmatically with a
 * {@link FilterDef} and {@link FilterMap}s, in front of {@link AppServlet} mapped to {@code /api/*}
 * (so the path is Tomcat's servlet path {@code /api} plus path info), over real HTTP: what the Jetty
 * tests show, seen from a Tomcat. Tagged {@code tomcat}: the build runs it in its own Surefire
 * execution with Tomcat's Servlet 6.1 API classes instead of the 6.0 API jar the module compiles
 * against (see the module's pom).
 */
@Tag("tomcat")
class TomcatFilterTest {
    private static final String CONTEXT = "/app";
    private static final AtomicInteger SERVERS = new AtomicInteger();
    private static final TypeReference<Map<String, Object>> JSON_OBJECT = new TypeReference<>() { };

    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00.250Z"));
    private Tomcat tomcat;
    private int port;

    @AfterEach
    void stop() throws Exception {
        if (tomcat != null) {
            tomcat.stop();
            tomcat.destroy();
        }
    }

    // ---------------------------------------------------------------- the server

    /** {@code filter} mapped to {@code /*} for REQUEST dispatches. */
    private void start(Filter filter) {
        start(context -> addFilter(context, "rateLimit", filter, "/*"));
    }

    private void start(Consumer<Context> filters) {
        assertThat(startContext(filters).getState()).isEqualTo(LifecycleState.STARTED);
    }

    /** Tomcat with the app servlet on {@code /api/*} (404s sent to the error page {@code /api/reports}), filters set up by {@code filters}. */
    private Context startContext(Consumer<Context> filters) {
        try {
            Path base = Path.of("target", "tomcat", "server-" + SERVERS.incrementAndGet()).toAbsolutePath();
            Files.createDirectories(base.resolve("webapps"));
            tomcat = new Tomcat();
            tomcat.setBaseDir(base.toString());
            tomcat.setPort(0);
            Connector connector = tomcat.getConnector();
            connector.setProperty("address", "127.0.0.1");
            Context context = tomcat.addContext(CONTEXT, base.toString());
            Tomcat.addServlet(context, "app", new AppServlet()).setAsyncSupported(true);
            context.addServletMapping("/api/*", "app");
            ErrorPage notFound = new ErrorPage();
            notFound.setErrorCode(404);
            notFound.setLocation("/api/reports");
            context.addErrorPage(notFound);
            filters.accept(context);
            tomcat.start();
            port = connector.getLocalPort();
            return context;
        } catch (Exception e) {
            throw new IllegalStateException("Tomcat did not start: " + e, e);
        }
    }

    /** One filter definition, mapped to each of {@code urlPatterns} by its own {@link FilterMap} for REQUEST dispatches. */
    private static void addFilter(Context context, String name, Filter filter, String... urlPatterns) {
        FilterDef def = new FilterDef();
        def.setFilterName(name);
        def.setFilter(filter);
        def.setAsyncSupported("true");
        context.addFilterDef(def);
        for (String pattern : urlPatterns) {
            FilterMap map = new FilterMap();
            map.setFilterName(name);
            map.addURLPattern(pattern);
            context.addFilterMap(map);
        }
    }

    /** As web.xml declares it: by class name, with init-params, mapped to {@code /*} for every dispatcher type. */
    private static void declareFilter(Context context, String... initParams) {
        FilterDef def = new FilterDef();
        def.setFilterName("rateLimit");
        def.setFilterClass(RateLimitFilter.class.getName());
        def.setAsyncSupported("true");
        for (int i = 0; i < initParams.length; i += 2) {
            def.addInitParameter(initParams[i], initParams[i + 1]);
        }
        context.addFilterDef(def);
        FilterMap map = new FilterMap();
        map.setFilterName("rateLimit");
        map.addURLPattern("/*");
        for (DispatcherType type : DispatcherType.values()) {
            map.setDispatcher(type.name());
        }
        context.addFilterMap(map);
    }

    private HttpResponse<String> send(String method, String path, String body, String... headers) {
        return HttpCalls.send(URI.create("http://127.0.0.1:" + port + CONTEXT + path), method, body, headers);
    }

    private HttpResponse<String> get(String path, String... headers) {
        return send("GET", path, null, headers);
    }

    /** Sends {@code request} (each char one ISO-8859-1 byte) on a new connection and reads until the server closes it. */
    private String raw(String request) {
        return HttpCalls.raw(port, request);
    }

    // ---------------------------------------------------------------- headers and refusals

    @Test
    void sendsTheRateLimitHeadersAndThen429WithRetryAfterAndProblemJson() throws Exception {
        start(RateLimitFilter.builder().clock(clock).build());

        HttpResponse<String> first = get("/api/scan");
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).isEqualTo("ok GET REQUEST /api/scan");
        assertThat(rateLimitHeaders(first)).containsExactlyInAnyOrderEntriesOf(Map.of(
                "X-RateLimit-Limit", "10",
                "X-RateLimit-Remaining", "9",
                "X-RateLimit-Reset", String.valueOf(EPOCH + 2),
                "X-RateLimit-Tier", "free",
                "RateLimit-Policy", "\"scan\";q=10;w=10",
                "RateLimit", "\"scan\";r=9;t=1"));
        for (int i = 0; i < 9; i++) {
            assertThat(get("/api/scan").statusCode()).isEqualTo(200);
        }

        HttpResponse<String> refused = get("/api/scan");
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(rateLimitHeaders(refused)).containsExactlyInAnyOrderEntriesOf(Map.of(
                "X-RateLimit-Limit", "10",
                "X-RateLimit-Remaining", "0",
                "X-RateLimit-Reset", String.valueOf(EPOCH + 11),
                "X-RateLimit-Tier", "free",
                "RateLimit-Policy", "\"scan\";q=10;w=10",
                "RateLimit", "\"scan\";r=0;t=1",
                "Retry-After", "1"));
        assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(new ObjectMapper().readValue(refused.body(), JSON_OBJECT))
                .containsEntry("type", "urn:dev-ratelimit:rate-limited").containsEntry("retry_after", 1)
                .containsEntry("endpoint", "scan").containsEntry("limit", 10);

        // The login fixed window: 5 a minute, epoch aligned, so the sixth waits until 00:01:00.
        for (int remaining = 4; remaining >= 0; remaining--) {
            HttpResponse<String> login = send("POST", "/api/login", null);
            assertThat(login.statusCode()).isEqualTo(200);
            assertThat(login.headers().firstValue("RateLimit")).hasValue("\"login\";r=" + remaining + ";t=60");
        }
        HttpResponse<String> sixth = send("POST", "/api/login", null);
        assertThat(sixth.statusCode()).isEqualTo(429);
        assertThat(sixth.headers().firstValue("Retry-After")).hasValue("60");
        assertThat(sixth.headers().firstValue("X-RateLimit-Reset")).hasValue(String.valueOf(EPOCH + 60));
        assertThat(new ObjectMapper().readValue(sixth.body(), JSON_OBJECT)).containsEntry("detail",
                "Too many requests to login for tier free: 5 allowed; retry after 60 s.");

        // Unlimited and allowlisted paths pass untouched.
        assertThat(rateLimitHeaders(get("/api/other"))).isEmpty();
    }

    @Test
    void countsEverySpellingOfAPathAndHeadAgainstTheGetRule() {
        start(RateLimitFilter.builder().clock(clock).build());

        List<String> spellings = List.of("/api/scan", "/api/scan/", "/api/./scan", "/api/x/../scan", "/api/%73can",
                "/api/scan;x=1", "/api/scan;jsessionid=1", "/api//scan");
        int remaining = 10;
        for (String spelling : spellings) {
            HttpResponse<String> response = get(spelling);
            assertThat(response.statusCode()).as(spelling).isEqualTo(200);
            assertThat(response.headers().firstValue("X-RateLimit-Remaining")).as(spelling).hasValue(String.valueOf(--remaining));
            assertThat(response.headers().firstValue("RateLimit-Policy")).as(spelling).hasValue("\"scan\";q=10;w=10");
        }
        // HEAD is answered by doGet: it spends the same bucket.
        HttpResponse<String> head = send("HEAD", "/api/scan", null);
        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.headers().firstValue("X-RateLimit-Remaining")).hasValue(String.valueOf(--remaining));
        assertThat(send("HEAD", "/api/scan;x=1/", null).headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
        assertThat(send("HEAD", "/api/scan", null).statusCode()).isEqualTo(429);
        assertThat(get("/api/scan").statusCode()).isEqualTo(429);
    }

    @Test
    void anEncodedSemicolonDoesNotClimbOutOfTheLimitedPathTheServletReceives() {
        start(RateLimitFilter.builder().clock(clock).config(RateLimitConfig.builder()
                .endpoint(EndpointRule.of("*", "/api/**", "api"))
                .limit("free", "api", Policy.fixedWindow(2, Duration.ofHours(1)))
                .allowlist(new Allowlist(List.of("/health"), List.of()))
                .build()).build());

        // Tomcat removes path parameters before decoding: the servlet on /api/* gets the segment "..;".
        HttpResponse<String> climbing = get("/api/..%3B/x");
        assertThat(climbing.body()).isEqualTo("ok GET REQUEST /api/..;/x");
        assertThat(climbing.headers().firstValue("X-RateLimit-Remaining")).hasValue("1");
        HttpResponse<String> toTheAllowlist = get("/api/x/..%3B/..%3B/health");
        assertThat(toTheAllowlist.body()).isEqualTo("ok GET REQUEST /api/x/..;/..;/health");
        assertThat(toTheAllowlist.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
        assertThat(get("/api/..%3B/x").statusCode()).isEqualTo(429);
    }

    @Test
    void aPathTomcatRedirectsItselfIsARedirectThatSpendsNothing() {
        start(RateLimitFilter.builder().clock(clock).build());

        // The context root without its slash, and paths that climb out of /api to it: Tomcat sends
        // the redirect itself, before any filter (through Servlet 6.1's default sendRedirect).
        for (String path : List.of("", "/api/..", "/api/x/../..")) {
            HttpResponse<String> redirect = get(path);
            assertThat(redirect.statusCode()).as(path).isEqualTo(302);
            assertThat(redirect.headers().firstValue("Location")).as(path).hasValue(CONTEXT + "/");
            assertThat(rateLimitHeaders(redirect)).as(path).isEmpty();
        }
        assertThat(get("/api/scan").headers().firstValue("X-RateLimit-Remaining")).hasValue("9");
    }

    // ---------------------------------------------------------------- client identity

    @Test
    void countsPerApiKeyAndIgnoresXForwardedForFromAnUntrustedPeer() {
        start(RateLimitFilter.builder().clock(clock).build());

        HttpResponse<String> pro = get("/api/scan", "X-API-Key", "sk-pro-abc");
        assertThat(pro.headers().firstValue("X-RateLimit-Tier")).hasValue("pro");
        assertThat(pro.headers().firstValue("X-RateLimit-Remaining")).hasValue("99");
        assertThat(get("/api/scan", "X-API-Key", "sk-free-one").headers().firstValue("X-RateLimit-Remaining")).hasValue("9");
        assertThat(get("/api/scan", "X-API-Key", "sk-free-two").headers().firstValue("X-RateLimit-Remaining")).hasValue("9");

        // No trusted proxies: ten different claimed addresses are one peer, 127.0.0.1.
        for (int i = 0; i < 10; i++) {
            assertThat(get("/api/scan", "X-Forwarded-For", "203.0.113." + i).statusCode()).isEqualTo(200);
        }
        assertThat(get("/api/scan", "X-Forwarded-For", "198.51.100.77").statusCode()).isEqualTo(429);
        assertThat(get("/api/scan", "X-API-Key", "sk-free-one").headers().firstValue("X-RateLimit-Remaining")).hasValue("8");
    }

    @Test
    void believesXForwardedForFromATrustedProxy() {
        // Tomcat's getRemoteAddr() is 127.0.0.1 here.
        start(RateLimitFilter.builder().clock(clock).trustedProxies("127.0.0.1/32").build());

        for (int remaining = 9; remaining >= 0; remaining--) {
            assertThat(get("/api/scan", "X-Forwarded-For", "203.0.113.7").headers().firstValue("X-RateLimit-Remaining"))
                    .hasValue(String.valueOf(remaining));
        }
        assertThat(get("/api/scan", "X-Forwarded-For", "203.0.113.7").statusCode()).isEqualTo(429);
        // The client's own writing left of the address the proxy appended changes nothing.
        assertThat(get("/api/scan", "X-Forwarded-For", "198.51.100.1, 203.0.113.7").statusCode()).isEqualTo(429);
        assertThat(get("/api/scan", "X-Forwarded-For", "203.0.113.8").headers().firstValue("X-RateLimit-Remaining")).hasValue("9");
        // The proxy itself, and a header that cannot be read (the peer is the client).
        assertThat(get("/api/scan").headers().firstValue("X-RateLimit-Remaining")).hasValue("9");
        assertThat(get("/api/scan", "X-Forwarded-For", "not-an-address").headers().firstValue("X-RateLimit-Remaining")).hasValue("8");
    }

    // ---------------------------------------------------------------- connections

    @Test
    void aRefusedPostWithAnUnreadBodyClosesTheConnectionAndTheNextRequestWorks() throws Exception {
        start(RateLimitFilter.builder().clock(clock).build());
        for (int i = 0; i < 5; i++) {
            assertThat(send("POST", "/api/login", "{\"user\":\"u\",\"pw\":\"p\"}").statusCode()).isEqualTo(200);
        }

        // A whole request with its body, then a second request on the same connection: the 429 says
        // Connection: close, and Tomcat closes it after the first answer.
        String body = "{\"user\":\"u\",\"pw\":\"p\"}";
        String post = "POST " + CONTEXT + "/api/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + body.length() + "\r\n\r\n" + body;
        String pipelined = raw(post + "GET " + CONTEXT + "/api/scan HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        assertThat(pipelined).startsWith("HTTP/1.1 429 ").containsIgnoringCase("\r\nConnection: close\r\n")
                .contains("application/problem+json");
        assertThat(pipelined.split("HTTP/1\\.1 ", -1)).as("one response only").hasSize(2);

        // Only the head: the filter answers before the body arrives.
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST " + CONTEXT + "/api/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 20\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(responseHead(socket.getInputStream())).startsWith("HTTP/1.1 429 ")
                    .containsIgnoringCase("\r\nConnection: close\r\n");
        }

        // Chunked: no Content-Length, a Transfer-Encoding.
        String chunked = raw("POST " + CONTEXT + "/api/login HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                + Integer.toHexString(body.length()) + "\r\n" + body + "\r\n0\r\n\r\n");
        assertThat(chunked).startsWith("HTTP/1.1 429 ").containsIgnoringCase("\r\nConnection: close\r\n");

        // The same HttpClient goes on working after refused POSTs with bodies, POSTs or not.
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> refused = send("POST", "/api/login", body);
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.headers().firstValue("Connection")).hasValue("close");
            assertThat(send("POST", "/api/orders", body).statusCode()).isEqualTo(200);
            assertThat(get("/api/scan").statusCode()).isEqualTo(200);
        }
        // A refusal without a body keeps the connection.
        assertThat(send("POST", "/api/login", null).headers().firstValue("Connection")).isEmpty();
    }

    private static String responseHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        byte[] end = {'\r', '\n', '\r', '\n'};
        int matched = 0;
        int c;
        while (matched < 4 && (c = in.read()) >= 0) {
            head.write(c);
            matched = c == end[matched] ? matched + 1 : (c == '\r' ? 1 : 0);
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }

    // ---------------------------------------------------------------- counted once

    @Test
    void aFilterMappedToBothSlashStarAndApiStarCountsEachRequestOnce() {
        AtomicInteger probeCalls = new AtomicInteger();
        Filter probe = (request, response, chain) -> {
            probeCalls.incrementAndGet();
            chain.doFilter(request, response);
        };
        start(context -> {
            addFilter(context, "rateLimit", RateLimitFilter.builder().clock(clock).build(), "/*", "/api/*");
            addFilter(context, "probe", probe, "/*", "/api/*");
        });

        for (int remaining = 9; remaining >= 0; remaining--) {
            HttpResponse<String> ok = get("/api/scan");
            assertThat(ok.statusCode()).isEqualTo(200);
            assertThat(ok.headers().firstValue("X-RateLimit-Remaining")).hasValue(String.valueOf(remaining));
        }
        assertThat(get("/api/scan").statusCode()).isEqualTo(429);
        // Unlike Jetty, Tomcat puts a filter in a chain once whatever its mappings (the rate-limit
        // filter's mark is not what saves the count here): the probe ran once per passed request.
        assertThat(probeCalls).hasValue(10);
    }

    // ---------------------------------------------------------------- hostile headers

    @Test
    void aHostileApiKeyIsA400NeverA500() {
        start(RateLimitFilter.builder().clock(clock).build());
        String head = "GET " + CONTEXT + "/api/scan HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";

        String tooLong = raw(head + "X-API-Key: sk-pro-" + "k".repeat(300) + "\r\n\r\n");
        assertThat(tooLong).startsWith("HTTP/1.1 400 ").contains("application/problem+json")
                .contains("longer than 256 characters").doesNotContain("kkkkkkkk");

        String nonAscii = raw(head + "X-API-Key: sk-pro-\u00e9\r\n\r\n");
        assertThat(nonAscii).startsWith("HTTP/1.1 400 ").contains("application/problem+json").contains("visible ASCII");

        String utf8 = raw(head + new String(("X-API-Key: sk-pro-\u2603\u00fc\r\n\r\n").getBytes(StandardCharsets.UTF_8),
                StandardCharsets.ISO_8859_1));
        assertThat(utf8).startsWith("HTTP/1.1 400 ").contains("visible ASCII");

        String twice = raw(head + "X-API-Key: sk-pro-a\r\nX-API-Key: sk-ent-b\r\n\r\n");
        assertThat(twice).startsWith("HTTP/1.1 400 ").contains("at most once");

        // Longer than Tomcat's header limit (8 KiB by default): Tomcat refuses it before any filter.
        String huge = raw(head + "X-API-Key: sk-pro-" + "k".repeat(20_000) + "\r\n\r\n");
        assertThat(huge).startsWith("HTTP/1.1 400 ");

        // Control characters: Tomcat's own parser.
        String control = raw(head + "X-API-Key: sk-pro-\u0001\u007f\r\n\r\n");
        assertThat(control).matches("HTTP/1\\.1 4\\d\\d (?s).*");

        // None of them was counted.
        assertThat(get("/api/scan").headers().firstValue("X-RateLimit-Remaining")).hasValue("9");
    }

    // ---------------------------------------------------------------- web.xml style and dispatches

    @Test
    void aFilterDeclaredByClassNameReadsItsInitParams() {
        start(context -> declareFilter(context, "config", "classpath:configs/webxml-limits.json", "trusted-proxies", "127.0.0.1/32",
                "api-key-header", "X-Key", "max-api-key-length", "32", "ipv6-prefix-length", "48", "header-style", "x",
                "dispatcher-types", "REQUEST,FORWARD"));

        for (int remaining = 2; remaining >= 0; remaining--) {
            HttpResponse<String> ok = get("/api/scan", "X-Forwarded-For", "203.0.113.9");
            assertThat(ok.headers().firstValue("X-RateLimit-Remaining")).hasValue(String.valueOf(remaining));
            assertThat(ok.headers().firstValue("RateLimit-Policy")).isEmpty();
        }
        assertThat(get("/api/scan", "X-Forwarded-For", "203.0.113.9").statusCode()).isEqualTo(429);
        assertThat(get("/api/scan", "X-Key", "sk-pro-1").headers().firstValue("X-RateLimit-Tier")).hasValue("pro");
        assertThat(get("/api/scan", "X-Key", "sk-pro-" + "9".repeat(30)).statusCode()).isEqualTo(400);
        // One /48: one client.
        assertThat(IntStream.range(0, 3).mapToObj(i -> get("/api/scan", "X-Forwarded-For", "2001:db8:1:" + i + "::1").statusCode()))
                .containsOnly(200);
        assertThat(get("/api/scan", "X-Forwarded-For", "2001:db8:1:ffff::1").statusCode()).isEqualTo(429);
        assertThat(get("/api/scan", "X-Forwarded-For", "2001:db8:2::1").statusCode()).isEqualTo(200);
    }

    @Test
    void anInvalidInitParamKeepsTheApplicationFromServing() {
        Context context = startContext(c -> declareFilter(c, "header-style", "sideways"));

        assertThat(context.getState()).isNotEqualTo(LifecycleState.STARTED);
        assertThat(get("/api/scan").statusCode()).isIn(404, 503);
    }

    @Test
    void countsARequestOnceThroughForwardsIncludesErrorPagesAndAsyncRedispatches() {
        start(context -> declareFilter(context, "dispatcher-types", "REQUEST,FORWARD,INCLUDE,ASYNC,ERROR"));

        String[][] cases = {
                {"forward=/api/reports", "ok GET FORWARD /api/reports"},
                {"include=/api/reports", "ok GET INCLUDE /api/scanincluded"},
                {"error=404", null},
                {"async=1", "ok GET ASYNC /api/scan"}};
        int remaining = 10;
        for (String[] c : cases) {
            for (int i = 0; i < 2; i++) {
                HttpResponse<String> response = get("/api/scan?" + c[0], "X-Forwarded-For", "unused");
                assertThat(response.headers().firstValue("X-RateLimit-Remaining")).as(c[0]).hasValue(String.valueOf(--remaining));
                if (c[1] != null) {
                    assertThat(response.body()).as(c[0]).isEqualTo(c[1]);
                } else {
                    assertThat(response.statusCode()).isEqualTo(404);
                }
            }
        }
        // The dispatch targets (/api/reports) were never counted.
        assertThat(get("/api/reports").headers().firstValue("X-RateLimit-Remaining")).hasValue("99");
        // A forward from an unlimited path to a limited one is counted there when forwards count.
        assertThat(get("/api/home?forward=/api/scan").headers().firstValue("X-RateLimit-Remaining")).hasValue(String.valueOf(--remaining));
    }

    @Test
    void aRefusedIncludeKeepsWhatTheIncludingPageWroteBeforeIt() {
        start(context -> declareFilter(context, "dispatcher-types", "REQUEST,INCLUDE"));
        for (int i = 0; i < 10; i++) {
            get("/api/scan");
        }

        // An unlimited page writes, then includes a limited path over its limit: an include cannot set
        // the status, and the refusal goes in place, after the page's own text, which it must not erase.
        HttpResponse<String> response = get("/api/home?writer=1&include=/api/scan");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).startsWith("working").contains("\"status\":429").endsWith("included");
    }

    @Test
    void aRefusedIncludeWhoseBodyTheContainerFailsKeepsWhatTheIncludingPageWrote() {
        start(context -> {
            // In an include, a writer that fails on the problem's JSON (as a container could).
            FilterDef quirk = new FilterDef();
            quirk.setFilterName("quirk");
            quirk.setFilter((req, res, chain) -> chain.doFilter(req, new HttpServletResponseWrapper((HttpServletResponse) res) {
                @Override
                public PrintWriter getWriter() throws IOException {
                    PrintWriter page = super.getWriter();
                    return new PrintWriter(new Writer() {
                        @Override
                        public void write(char[] c, int off, int len) {
                            if (len > 0 && c[off] == '{') {
                                throw new IndexOutOfBoundsException("Range [0, 0 + -1) out of bounds");
                            }
                            page.write(c, off, len);
                        }

                        @Override
                        public void flush() {
                            page.flush();
                        }

                        @Override
                        public void close() {
                        }
                    });
                }
            }));
            context.addFilterDef(quirk);
            FilterMap map = new FilterMap();
            map.setFilterName("quirk");
            map.addURLPattern("/*");
            map.setDispatcher("INCLUDE");
            context.addFilterMap(map);
            declareFilter(context, "dispatcher-types", "REQUEST,INCLUDE");
        });
        for (int i = 0; i < 10; i++) {
            get("/api/scan");
        }

        HttpResponse<String> response = get("/api/home?writer=1&include=/api/scan");

        // Before, the refusal that could not write its body reset the buffer: the page's own text was gone.
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).startsWith("working").doesNotContain("\"status\"").endsWith("included");
    }

    @Test
    void aRefusedIncludeBeforeTheIncludingPageWroteAnythingIsNoServerError() {
        start(context -> declareFilter(context, "dispatcher-types", "REQUEST,INCLUDE"));
        for (int i = 0; i < 10; i++) {
            get("/api/scan");
        }

        // The page includes first and writes after, through its writer, as a JSP does: the refusal must
        // not have taken the output stream (the page's getWriter() would throw, the request be a 500).
        HttpResponse<String> response = get("/api/home?include=/api/scan");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("\"status\":429").endsWith("included");
    }

    @Test
    void refusesADispatchToALimitedPathAfterTheApplicationTookTheWriter() {
        start(context -> declareFilter(context, "dispatcher-types", "REQUEST,FORWARD,ASYNC"));
        for (int i = 0; i < 10; i++) {
            get("/api/scan");
        }

        // An unlimited page takes the writer, then forwards or re-dispatches to a limited path over its limit.
        for (String dispatch : List.of("forward=/api/scan", "async=/api/scan")) {
            HttpResponse<String> response = get("/api/home?writer=1&" + dispatch);

            assertThat(response.statusCode()).as(dispatch).isEqualTo(429);
            assertThat(response.headers().firstValue("Retry-After")).as(dispatch).hasValue("1");
            assertThat(response.body()).as(dispatch).startsWith("{\"type\":\"urn:dev-ratelimit:rate-limited\"").doesNotContain("ok GET");
        }
    }
}
