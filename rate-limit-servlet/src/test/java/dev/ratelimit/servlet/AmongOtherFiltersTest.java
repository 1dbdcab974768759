package dev.ratelimit.servlet;

import dev.ratelimit.Decision;
import dev.ratelimit.FailureMode;
import dev.ratelimit.Policy;
import dev.ratelimit.Source;
import dev.ratelimit.Verdict;
import dev.ratelimit.config.EndpointRule;
import dev.ratelimit.config.RateLimitConfig;
import dev.ratelimit.servlet.client.ClientIdResolver;
import dev.ratelimit.servlet.client.InvalidClientException;
import dev.ratelimit.servlet.headers.HeaderStyle;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

import static dev.ratelimit.servlet.HeadersTest.rateLimitHeaders;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The filter in an application's chain of filters, on a real Jetty: CORS preflights, caching and
 * request-id filters around it, and an application that streams before an async re-dispatch.
 */
class AmongOtherFiltersTest {

    /** A stricter limit tried out in shadow mode: 1 request an hour per client, for everything. */
    private static FilterHolder trialInShadowMode() {
        RateLimitConfig trial = RateLimitConfig.builder().tier("free").unmatched(Policy.fixedWindow(1, Duration.ofHours(1))).build();
        return holder("trial", RateLimitFilter.builder().config(trial).shadow(true).build());
    }

    private static FilterHolder holder(String name, Filter filter) {
        FilterHolder h = new FilterHolder(filter);
        h.setName(name);
        h.setAsyncSupported(true);
        return h;
    }

    @Test
    void aCorsPreflightIsNeitherCountedNorRefused() {
        // A browser sends no custom header (no X-API-Key) on a preflight: counted, it would spend the
        // default tier's quota of the address, and refused, it would fail the real request too.
        RateLimitConfig config = RateLimitConfig.builder().endpoint(EndpointRule.of("*", "/api/**", "api"))
                .limit("free", "api", Policy.fixedWindow(3, Duration.ofHours(1))).build();
        Filter cors = (req, res, chain) -> {
            HttpServletRequest request = (HttpServletRequest) req;
            HttpServletResponse response = (HttpServletResponse) res;
            response.setHeader("Access-Control-Allow-Origin", "https://app.example");
            if ("OPTIONS".equals(request.getMethod())) {
                response.setStatus(204);
                return;
            }
            chain.doFilter(req, res);
        };
        try (TestServer server = TestServer.start(context -> {
            context.addFilter(holder("rateLimit", RateLimitFilter.builder().config(config).build()), "/*", EnumSet.of(DispatcherType.REQUEST));
            context.addFilter(holder("cors", cors), "/*", EnumSet.of(DispatcherType.REQUEST));
        })) {
            for (int i = 0; i < 5; i++) {
                HttpResponse<String> preflight = server.send("OPTIONS", "/api/scan", "Origin", "https://app.example",
                        "Access-Control-Request-Method", "GET", "Access-Control-Request-Headers", "x-api-key");
                assertThat(preflight.statusCode()).isEqualTo(204);
                assertThat(preflight.headers().firstValue("X-RateLimit-Remaining")).isEmpty();
            }
            HttpResponse<String> plainOptions = server.send("OPTIONS", "/api/scan");
            assertThat(plainOptions.headers().firstValue("X-RateLimit-Remaining")).as("not a preflight: counted").hasValue("2");
            assertThat(server.get("/api/scan", "Origin", "https://app.example").headers().firstValue("X-RateLimit-Remaining"))
                    .hasValue("1");
        }
    }

    @Test
    void aRuleWrittenForOptionsCountsPreflightsToo() {
        // Anyone can add Origin and Access-Control-Request-Method: a rule naming OPTIONS still holds.
        RateLimitConfig config = RateLimitConfig.builder().endpoint(EndpointRule.of("OPTIONS", "/api/**", "options"))
                .limit("free", "options", Policy.fixedWindow(2, Duration.ofHours(1))).build();
        try (TestServer server = TestServer.start(context ->
                context.addFilter(holder("rateLimit", RateLimitFilter.builder().config(config).build()), "/*",
                        EnumSet.of(DispatcherType.REQUEST)))) {
            List<Integer> statuses = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                statuses.add(server.send("OPTIONS", "/api/scan", "Origin", "https://app.example",
                        "Access-Control-Request-Method", "GET").statusCode());
            }
            assertThat(statuses).containsExactly(200, 200, 429);
        }
    }

    @Test
    void aRefusalIsNeverCachedWhateverAnEarlierFilterSaid() {
        Filter caching = (req, res, chain) -> {
            ((HttpServletResponse) res).setHeader("Cache-Control", "public, max-age=3600");
            chain.doFilter(req, res);
        };
        try (TestServer server = TestServer.start(context -> {
            context.addFilter(holder("caching", caching), "/*", EnumSet.of(DispatcherType.REQUEST));
            context.addFilter(holder("rateLimit", RateLimitFilter.builder().build()), "/*", EnumSet.of(DispatcherType.REQUEST));
        })) {
            HttpResponse<String> allowed = server.get("/api/scan");
            assertThat(allowed.headers().firstValue("Cache-Control")).as("the application's answer is its own").hasValue("public, max-age=3600");
            HttpResponse<String> last = allowed;
            for (int i = 0; i < 10; i++) {
                last = server.get("/api/scan");
            }
            assertThat(last.statusCode()).isEqualTo(429);
            assertThat(last.headers().firstValue("Cache-Control")).hasValue("no-store");
        }
    }

    @Test
    void aFilterOutsideStillAddsItsHeadersToARefusal() {
        Filter requestId = (req, res, chain) -> {
            chain.doFilter(req, res);
            ((HttpServletResponse) res).setHeader("X-Request-Id", "req-42");
        };
        try (TestServer server = TestServer.start(context -> {
            context.addFilter(holder("requestId", requestId), "/*", EnumSet.of(DispatcherType.REQUEST));
            context.addFilter(holder("rateLimit", RateLimitFilter.builder().build()), "/*", EnumSet.of(DispatcherType.REQUEST));
        })) {
            HttpResponse<String> last = null;
            for (int i = 0; i < 11; i++) {
                last = server.get("/api/scan");
            }
            assertThat(last.statusCode()).isEqualTo(429);
            assertThat(last.headers().firstValue("X-Request-Id")).hasValue("req-42");
            assertThat(last.body()).contains("\"status\":429");
        }
    }

    /**
     * {@code requests} GETs of /api/reports through {@code outer} around the default per-endpoint
     * limits (reports: 100 an hour): each answer's status, X-RateLimit-Limit and -Remaining.
     */
    private static List<String> limitsSeen(FilterHolder outer, int requests) {
        try (TestServer server = TestServer.start(context -> {
            context.addFilter(outer, "/*", EnumSet.of(DispatcherType.REQUEST));
            context.addFilter(holder("perEndpoint", RateLimitFilter.builder().build()), "/*", EnumSet.of(DispatcherType.REQUEST));
        })) {
            List<String> seen = new ArrayList<>();
            for (int i = 0; i < requests; i++) {
                HttpResponse<String> r = server.get("/api/reports");
                seen.add(r.statusCode() + " " + r.headers().firstValue("X-RateLimit-Limit").orElse("-") + " "
                        + r.headers().firstValue("X-RateLimit-Remaining").orElse("-"));
            }
            return seen;
        }
    }

    @Test
    void twoInstancesOnOneRequestShowTheLimitThatBitesFirst() {
        // Around the per-endpoint limits, 3 requests an hour per address for everything.
        // Before, the inner filter's headers won: 100 99, 100 98, 100 97, then a 429 out of nowhere.
        assertThat(limitsSeen(perAddress(), 4)).containsExactly("200 3 2", "200 3 1", "200 3 0", "429 3 0");
    }

    @Test
    void onATieTheOuterInstanceKeepsItsHeaders() {
        // Around the per-endpoint limits (reports: 100 an hour), 100 an hour per address: 99 left in both.
        RateLimitConfig perAddress = RateLimitConfig.builder().tier("free").unmatched(Policy.fixedWindow(100, Duration.ofHours(1))).build();
        try (TestServer server = TestServer.start(context -> {
            context.addFilter(holder("perAddress", RateLimitFilter.builder().config(perAddress).build()), "/*",
                    EnumSet.of(DispatcherType.REQUEST));
            context.addFilter(holder("perEndpoint", RateLimitFilter.builder().build()), "/*", EnumSet.of(DispatcherType.REQUEST));
        })) {
            HttpResponse<String> response = server.get("/api/reports");

            assertThat(response.headers().firstValue("X-RateLimit-Remaining")).hasValue("99");
            assertThat(response.headers().firstValue("RateLimit-Policy")).hasValue("\"default\";q=100;w=3600");
            assertThat(response.headers().firstValue("RateLimit").orElseThrow()).startsWith("\"default\";r=99;");
        }
    }

    @Test
    void aShadowedInstanceNeverHidesTheHeadersOfTheOneThatEnforces() {
        // A stricter per-address limit tried out in shadow mode around the enforced per-endpoint limits.
        // Before, the shadowed 0 left won: clients read "1 0" while 100 an hour was enforced.
        assertThat(limitsSeen(trialInShadowMode(), 3)).containsExactly("200 100 99", "200 100 98", "200 100 97");
    }

    @Test
    void anEnforcingInstanceKeepsItsHeadersOverAShadowedOneInside() {
        try (TestServer server = TestServer.start(context -> {
            context.addFilter(holder("perEndpoint", RateLimitFilter.builder().build()), "/*", EnumSet.of(DispatcherType.REQUEST));
            context.addFilter(trialInShadowMode(), "/*", EnumSet.of(DispatcherType.REQUEST));
        })) {
            server.get("/api/reports");
            HttpResponse<String> second = server.get("/api/reports");
            assertThat(second.statusCode()).isEqualTo(200);
            assertThat(second.headers().firstValue("X-RateLimit-Limit")).hasValue("100");
            assertThat(second.headers().firstValue("X-RateLimit-Remaining")).hasValue("98");
        }
    }

    /** Redis down under FAIL_OPEN: allowed, uncounted, no numbers. */
    private static FixedStore failingOpen() {
        return new FixedStore(limit -> new Decision(Verdict.ALLOWED, Source.FAIL_OPEN, limit.policies().get(0),
                limit.policies().get(0).limit(), limit.policies().get(0).limit(), 0, 0));
    }

    @Test
    void anEnforcedInstanceInAnOutageStillKeepsAShadowedOneInsideFromShowingItsNumbers() {
        try (TestServer server = TestServer.start(context -> {
            context.addFilter(holder("perEndpoint", RateLimitFilter.builder().store(failingOpen()).build()), "/*",
                    EnumSet.of(DispatcherType.REQUEST));
            context.addFilter(trialInShadowMode(), "/*", EnumSet.of(DispatcherType.REQUEST));
        })) {
            server.get("/api/reports");
            HttpResponse<String> second = server.get("/api/reports");
            // Before, the trial's "1 limit, 0 left" showed, as if enforced.
            assertThat(rateLimitHeaders(second)).containsOnlyKeys("X-RateLimit-Tier", "RateLimit-Policy");
            assertThat(second.headers().firstValue("RateLimit-Policy").orElseThrow()).startsWith("\"reports\"");
        }
    }

    @Test
    void anEnforcedInstanceInAnOutageInsideAShadowedOneLeavesNoStaleNumbers() {
        try (TestServer server = TestServer.start(context -> {
            context.addFilter(trialInShadowMode(), "/*", EnumSet.of(DispatcherType.REQUEST));
            context.addFilter(holder("perEndpoint", RateLimitFilter.builder().store(failingOpen()).build()), "/*",
                    EnumSet.of(DispatcherType.REQUEST));
        })) {
            HttpResponse<String> response = server.get("/api/reports");
            // Not the trial's X-RateLimit-Remaining and RateLimit beside the enforced limit's RateLimit-Policy.
            assertThat(rateLimitHeaders(response)).containsOnlyKeys("X-RateLimit-Tier", "RateLimit-Policy");
            assertThat(response.headers().firstValue("RateLimit-Policy").orElseThrow()).startsWith("\"reports\"");
        }
    }

    /** 3 requests an hour per client, for everything: the outer instance of two. */
    private static FilterHolder perAddress() {
        RateLimitConfig perAddress = RateLimitConfig.builder().tier("free").unmatched(Policy.fixedWindow(3, Duration.ofHours(1))).build();
        return holder("perAddress", RateLimitFilter.builder().config(perAddress).build());
    }

    /** A server with two instances on every request: {@link #perAddress()} outside, {@code perEndpoint} inside it. */
    private static TestServer behindPerAddress(Filter perEndpoint) {
        return TestServer.start(context -> {
            context.addFilter(perAddress(), "/*", EnumSet.of(DispatcherType.REQUEST));
            context.addFilter(holder("perEndpoint", perEndpoint), "/*", EnumSet.of(DispatcherType.REQUEST));
        });
    }

    @ParameterizedTest(name = "decided by {0}")
    @EnumSource(value = Source.class, names = {"FAIL_CLOSED", "LOCAL_FALLBACK", "STORE"})
    void anInnerInstanceAnswering503CarriesNoNumbersOfTheOuterLimit(Source source) {
        // A store that cannot decide, whoever says so: the failure mode, the Redis store's local fallback, a custom store.
        FixedStore unavailable = new FixedStore(limit -> new Decision(Verdict.STORE_UNAVAILABLE, source,
                limit.policies().get(0), limit.policies().get(0).limit(), 0, 0, 1_000_000));
        try (TestServer server = behindPerAddress(RateLimitFilter.builder().store(unavailable).build())) {
            HttpResponse<String> response = server.get("/api/reports");
            assertThat(response.statusCode()).isEqualTo(503);
            assertThat(rateLimitHeaders(response)).containsOnlyKeys("X-RateLimit-Tier", "RateLimit-Policy", "Retry-After");
            assertThat(response.headers().firstValue("RateLimit-Policy").orElseThrow()).startsWith("\"reports\"");
        }
    }

    @Test
    void anInnerInstanceThatFailsToDecideAnswers503WithoutTheOuterLimitsHeaders() {
        ClientIdResolver broken = request -> {
            throw new IllegalStateException("the account service is down");
        };
        try (TestServer server = behindPerAddress(RateLimitFilter.builder().clientIdResolver(broken)
                .failureMode(FailureMode.FAIL_CLOSED).build())) {
            HttpResponse<String> response = server.get("/api/reports");
            assertThat(response.statusCode()).isEqualTo(503);
            assertThat(rateLimitHeaders(response)).containsOnlyKeys("Retry-After");
        }
    }

    @Test
    void anInnerInstanceRefusingAMalformedClientAnswers400WithoutTheOuterLimitsHeaders() {
        ClientIdResolver strict = request -> {
            throw new InvalidClientException("invalid_api_key", "The X-API-Key header is longer than 16 characters.");
        };
        try (TestServer server = behindPerAddress(RateLimitFilter.builder().clientIdResolver(strict).build())) {
            HttpResponse<String> response = server.get("/api/reports");
            assertThat(response.statusCode()).isEqualTo(400);
            assertThat(rateLimitHeaders(response)).isEmpty();
        }
    }

    @Test
    void anInnerInstanceOfAnotherHeaderStyleReplacesEveryFieldOfTheOuterOne() {
        RateLimitConfig tight = RateLimitConfig.builder().tier("free").unmatched(Policy.fixedWindow(1, Duration.ofHours(1))).build();
        try (TestServer server = behindPerAddress(RateLimitFilter.builder().config(tight).headerStyle(HeaderStyle.X).build())) {
            HttpResponse<String> first = server.get("/api/reports");
            assertThat(rateLimitHeaders(first)).containsOnlyKeys("X-RateLimit-Limit", "X-RateLimit-Remaining",
                    "X-RateLimit-Reset", "X-RateLimit-Tier");
            assertThat(first.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");

            HttpResponse<String> refused = server.get("/api/reports");
            assertThat(refused.statusCode()).isEqualTo(429);
            // Not the outer instance's RateLimit: ...;r=1 beside the inner one's X-RateLimit-Remaining: 0.
            assertThat(rateLimitHeaders(refused)).containsOnlyKeys("X-RateLimit-Limit", "X-RateLimit-Remaining",
                    "X-RateLimit-Reset", "X-RateLimit-Tier", "Retry-After");
        }
    }

    /**
     * {@code servlet} at {@code path}, async-supported, behind a filter with the default limits that
     * counts the dispatches {@code counted} (and is mapped for exactly those).
     */
    private static TestServer asyncServer(String path, HttpServlet servlet, DispatcherType first, DispatcherType... counted) {
        return TestServer.start(context -> {
            ServletHolder holder = new ServletHolder("app", servlet);
            holder.setAsyncSupported(true);
            context.addServlet(holder, path);
            context.addFilter(holder("rateLimit", RateLimitFilter.builder().dispatcherTypes(first, counted).build()),
                    "/*", EnumSet.of(first, counted));
        });
    }

    @Test
    void aRefusalOfAnAsyncDispatchAfterTheApplicationCommittedAppendsNothingToItsAnswer() {
        HttpServlet streaming = new HttpServlet() {
            @Override
            protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                if (req.getDispatcherType() == DispatcherType.REQUEST) {
                    resp.setContentType("text/plain");
                    resp.getWriter().write("partial;");
                    resp.flushBuffer();
                    req.startAsync().dispatch("/api/scan");
                    return;
                }
                resp.getWriter().write("done");
            }
        };
        try (TestServer server = asyncServer("/stream", streaming, DispatcherType.REQUEST, DispatcherType.ASYNC)) {
            HttpResponse<String> last = null;
            for (int i = 0; i < 11; i++) {
                last = server.get("/stream");
            }
            assertThat(last.statusCode()).as("committed before the refusal").isEqualTo(200);
            assertThat(last.body()).isEqualTo("partial;");
        }
    }

    /**
     * @param charset the writer the application took before it re-dispatched, in that charset; none when empty
     * @param before  what it wrote through that writer before
     */
    @ParameterizedTest
    @CsvSource({"'', ''", "UTF-16, ''", "UTF-16, he"})
    void aRefusalOfAnAsyncDispatchIsWholeWhateverLengthTheApplicationSetBefore(String charset, String before) {
        HttpServlet sized = new HttpServlet() {
            @Override
            protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                if (req.getDispatcherType() == DispatcherType.REQUEST) {
                    if (!charset.isEmpty()) {
                        resp.setCharacterEncoding(charset);
                        resp.getWriter().write(before);
                    }
                    resp.setContentLength(charset.isEmpty() ? 5 : 12); // "hello" in that charset
                    req.startAsync().dispatch();
                    return;
                }
                resp.getWriter().write("hello".substring(before.length()));
            }
        };
        try (TestServer server = asyncServer("/api/scan", sized, DispatcherType.ASYNC)) {
            for (int i = 0; i < 10; i++) {
                assertThat(server.get("/api/scan").statusCode()).isEqualTo(200);
            }
            HttpResponse<String> last = server.get("/api/scan");
            // Before, the length the application announced stood, and Jetty failed the longer refusal with a
            // 500; then a length counting one byte a character failed the UTF-16 writer's body so, and one
            // counting the byte order mark failed it when the writer had sent its mark before.
            assertThat(last.statusCode()).isEqualTo(429);
            assertThat(last.body()).startsWith("{\"type\":").contains("\"status\":429").endsWith("}");
        }
    }

    /**
     * A response as Open Liberty 26 treats it: {@code setContentLengthLong(-1)} is taken literally, and
     * the next write fails with an {@link IndexOutOfBoundsException}; or, with {@code failProblems}, any
     * write of a problem body fails so.
     */
    private static Filter containerQuirk(boolean failProblems) {
        return (req, res, chain) -> chain.doFilter(req, new HttpServletResponseWrapper((HttpServletResponse) res) {
            private boolean negativeLength;

            @Override
            public void setContentLength(int len) {
                setContentLengthLong(len);
            }

            @Override
            public void setContentLengthLong(long len) {
                negativeLength = len < 0;
                super.setContentLengthLong(len);
            }

            @Override
            public ServletOutputStream getOutputStream() throws IOException {
                ServletOutputStream out = super.getOutputStream();
                boolean problem = failProblems && String.valueOf(getContentType()).startsWith("application/problem+json");
                return new ServletOutputStream() {
                    @Override
                    public void write(int b) throws IOException {
                        write(new byte[] {(byte) b}, 0, 1);
                    }

                    @Override
                    public void write(byte[] b, int off, int len) throws IOException {
                        if (negativeLength || problem) {
                            throw new IndexOutOfBoundsException("Range [0, 0 + -1) out of bounds for length " + len);
                        }
                        out.write(b, off, len);
                    }

                    @Override
                    public boolean isReady() {
                        return out.isReady();
                    }

                    @Override
                    public void setWriteListener(WriteListener listener) {
                        out.setWriteListener(listener);
                    }
                };
            }
        });
    }

    /**
     * Serves {@code /api/scan} behind {@code quirk} and the filter, counting the requests that reach it,
     * and spends the free tier's 10 there, so that the next request is refused.
     */
    private static TestServer spentBehind(Filter quirk, List<String> served) {
        HttpServlet app = new HttpServlet() {
            @Override
            protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                served.add(req.getRequestURI());
                resp.getWriter().write("ok");
            }
        };
        TestServer server = TestServer.start(context -> {
            context.addServlet(new ServletHolder("app", app), "/api/scan");
            context.addFilter(holder("quirk", quirk), "/*", EnumSet.of(DispatcherType.REQUEST));
            context.addFilter(holder("rateLimit", RateLimitFilter.builder().build()), "/*", EnumSet.of(DispatcherType.REQUEST));
        });
        for (int i = 0; i < 10; i++) {
            assertThat(server.get("/api/scan").statusCode()).isEqualTo(200);
        }
        return server;
    }

    @Test
    void aContainerThatTakesALengthOfMinusOneLiterallyGetsTheWholeRefusal() {
        List<String> served = new ArrayList<>();
        try (TestServer server = spentBehind(containerQuirk(false), served)) {
            HttpResponse<String> refused = server.get("/api/scan");
            // Before, the refusal cleared a length with -1: on Open Liberty its body failed, and the refused
            // request went on to the application as if the store had failed.
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.body()).contains("\"status\":429");
            assertThat(served).hasSize(10);
        }
    }

    @Test
    void aRefusalWhoseBodyTheContainerFailsIsStillARefusalAndNeverReachesTheApplication() {
        List<String> served = new ArrayList<>();
        try (TestServer server = spentBehind(containerQuirk(true), served)) {
            String log = StderrLog.during(() -> {
                HttpResponse<String> refused = server.get("/api/scan");
                assertThat(refused.statusCode()).isEqualTo(429);
                assertThat(refused.headers().firstValue("Retry-After")).isPresent();
                assertThat(refused.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
            });
            assertThat(served).as("the refused request never reached the application").hasSize(10);
            assertThat(log).contains("could not write the body of a 429");
            assertThat(StderrLog.during(() -> assertThat(server.get("/api/scan").statusCode()).isEqualTo(429)))
                    .as("said once").doesNotContain("could not write");
        }
    }
}
