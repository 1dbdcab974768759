package dev.ratelimit.servlet;

import dev.ratelimit.InvalidConfigurationException;
import dev.ratelimit.Policy;
import dev.ratelimit.config.Allowlist;
import dev.ratelimit.config.EndpointRule;
import dev.ratelimit.config.RateLimitConfig;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EndpointsTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
            "'',                      /",
            "/,                       /",
            "/api/scan,               /api/scan",
            "/api/scan/,              /api/scan",
            "//api///scan//,          /api/scan",
            "/api/./scan,             /api/scan",
            "/api/x/../scan,          /api/scan",
            "/../../api/scan,         /api/scan",
            // The container removed path parameters before decoding: a ";" left is a decoded %3B, part of its segment.
            "/api/scan;x=1,           /api/scan;x=1",
            "/api/..;/scan,           /api/..;/scan",
            "/api/.;/scan/,           /api/.;/scan",
            "api/scan,                /api/scan",
            "/api/..scan,             /api/..scan",
    })
    void normalizesEverySpellingOfAPath(String path, String normalized) {
        assertThat(Endpoints.normalize(path)).isEqualTo(normalized);
    }

    @Test
    void matchesTheFirstRuleAndLetsHeadUseGetRules() {
        Endpoints endpoints = new Endpoints(List.of(
                EndpointRule.of("GET", "/api/scan", "scan"),
                EndpointRule.of("*", "/api/**", "api")));

        assertThat(endpoints.match("GET", "/api/scan")).isZero();
        assertThat(endpoints.match("POST", "/api/scan")).isEqualTo(1);
        assertThat(endpoints.match("HEAD", "/api/head")).isEqualTo(1);
        assertThat(endpoints.match("GET", "/other")).isEqualTo(-1);
        assertThat(new Endpoints(List.of(EndpointRule.of("GET", "/api/scan", "scan"))).match("HEAD", "/api/scan")).isZero();
        // HEAD is served by doGet: a GET rule before a catch-all wins for HEAD as it does for GET.
        assertThat(new Endpoints(List.of(EndpointRule.of("GET", "/api/scan", "scan"), EndpointRule.of("*", "/api/**", "api")))
                .match("HEAD", "/api/scan")).isZero();
    }

    @Test
    void refusesAPathPatternNoNormalizedRequestPathCouldMatch() {
        RateLimitConfig trailingSlash = RateLimitConfig.builder()
                .endpoint(EndpointRule.of("GET", "/api/scan/", "scan"))
                .limit("free", "scan", Policy.tokenBucket(2, 1, Duration.ofSeconds(1)))
                .build();
        RateLimitConfig allowlisted = RateLimitConfig.builder()
                .endpoint(EndpointRule.of("GET", "/api/scan", "scan"))
                .limit("free", "scan", Policy.tokenBucket(2, 1, Duration.ofSeconds(1)))
                .allowlist(new Allowlist(List.of("/health", "/internal//**"), List.of()))
                .build();

        // Request paths are matched normalized: "/api/scan/" arrives as "/api/scan" and would never be limited.
        assertThatThrownBy(() -> RateLimitFilter.builder().config(trailingSlash).build())
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("endpoints[0].path").hasMessageContaining("\"/api/scan/\"");
        assertThatThrownBy(() -> RateLimitFilter.builder().config(allowlisted).build())
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("allowlist.paths[1]").hasMessageContaining("\"/internal//**\"");
        for (String pattern : List.of("/", "/*", "/**", "/api/*", "/api/**", "/.well-known/**", "/api/..scan")) {
            Endpoints.requireNormalized("path", pattern);
        }
        for (String pattern : List.of("//*", "//api/scan", "/./api/scan", "/api/scan/", "/api//scan", "/api/./scan", "/api/../scan", "/api;v=1/**")) {
            assertThatThrownBy(() -> Endpoints.requireNormalized("path", pattern)).as(pattern)
                    .isInstanceOf(InvalidConfigurationException.class);
        }
    }

    @Test
    void refusesALimitThatNoEndpointRuleNames() {
        // "search" is limited in every tier, but no rule maps a request to it: it would never apply.
        RateLimitConfig config = RateLimitConfig.builder()
                .endpoint(EndpointRule.of("GET", "/api/scan", "scan"))
                .limit("free", "scan", Policy.tokenBucket(2, 1, Duration.ofSeconds(1)))
                .limit("free", "search", Policy.fixedWindow(5, Duration.ofMinutes(1)))
                .build();

        assertThatThrownBy(() -> RateLimitFilter.builder().config(config).build())
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("tiers.free.search: no endpoints[] rule is named \"search\", so this limit would never apply; "
                        + "add a rule with \"name\": \"search\" or remove the limit");
    }

    @ParameterizedTest(name = "{0} {1} before {2} {3}")
    @CsvSource({
            "GET, /api/scan,  GET,  /api/scan",
            "*,   /api/scan,  POST, /api/scan",
            "GET, /api/scan,  HEAD, /api/scan",
            "GET, /api/*,     GET,  /api/scan",
            "GET, /api/*,     GET,  /api/*",
            "GET, /api/**,    GET,  /api",
            "GET, /api/**,    GET,  /api/v1/*",
            "GET, /api/**,    GET,  /api/v1/**",
            "GET, /api/**,    GET,  /api/*",
            "GET, /api/**,    GET,  /api/**",
            "*,   /**,        GET,  /",
            "*,   /**,        GET,  /api/*",
    })
    void refusesARuleThatAnEarlierRuleAlwaysMatchesFirst(String firstMethod, String firstPath, String method, String path) {
        RateLimitConfig config = twoRules(firstMethod, firstPath, method, path);

        assertThatThrownBy(() -> RateLimitFilter.builder().config(config).build())
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("endpoints[1]: " + method + " " + path + " never matches: endpoints[0] (" + firstMethod + " " + firstPath
                        + ") comes first and matches every request it would (the first matching rule wins); put the more specific rule first");
    }

    @ParameterizedTest(name = "{0} {1} before {2} {3}")
    @CsvSource({
            "GET,  /api/scan, POST, /api/scan",
            "HEAD, /api/scan, GET,  /api/scan",
            "GET,  /api/scan, *,    /api/scan",
            "GET,  /api/*,    GET,  /api",
            "GET,  /api/*,    GET,  /api/v1/scan",
            "GET,  /api/*,    GET,  /api/**",
            "GET,  /api/**,   GET,  /apis",
            "GET,  /api/**,   GET,  /apis/*",
            "GET,  /api/**,   GET,  /other/**",
            "GET,  /api/v1/**, GET, /api/*",
            "GET,  /*,        GET,  /",
    })
    void acceptsARuleThatSomeRequestReachesFirst(String firstMethod, String firstPath, String method, String path) {
        RateLimitConfig config = twoRules(firstMethod, firstPath, method, path);

        RateLimitFilter.builder().config(config).build().destroy();
    }

    @Test
    void acceptsASpaceInsideAPathPatternAsTheDecodedPathHoldsIt() {
        EndpointRule files = EndpointRule.of("GET", "/files/annual report", "files");
        RateLimitConfig config = RateLimitConfig.builder()
                .endpoint(files)
                .limit("free", "files", Policy.tokenBucket(2, 1, Duration.ofSeconds(1)))
                .build();

        RateLimitFilter.builder().config(config).build().destroy();
        assertThat(new Endpoints(List.of(files)).match("GET", "/files/annual report")).isZero();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "'/api/scan '          | control characters or whitespace at either end",
            "'/api/s\tcan'          | control characters or whitespace at either end",
            "/api/search?q=1       | a query (?) or fragment (#)",
            "/api/scan#top         | a query (?) or fragment (#)",
            "/files/my%20docs/**   | percent-encoding",
    })
    void refusesAPathPatternWrittenOtherwiseThanTheDecodedPathItMeans(String pattern, String problem) {
        RateLimitConfig config = RateLimitConfig.builder()
                .endpoint(EndpointRule.of("GET", pattern, "scan"))
                .limit("free", "scan", Policy.tokenBucket(2, 1, Duration.ofSeconds(1)))
                .build();

        // Request paths are matched decoded and without their query: "/api/scan " would only match "/api/scan%20".
        assertThatThrownBy(() -> RateLimitFilter.builder().config(config).build())
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageStartingWith("endpoints[0].path: must not contain " + problem);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
            "/app/api/;x/scan,        /api/scan",
            "/app/api/;/scan,         /api/scan",
            "/app/;v=1/api/scan;x=1,  /api/scan",
            "/app/api/%3Bx/scan,      /api/;x/scan",
    })
    void anAmbiguousUriIsDecodedWithoutItsPathParametersEvenWhenASegmentIsOnlyParameters(String uri, String path) {
        // Jetty refuses these over HTTP before an application sees them; a container that routes them
        // (as Jetty does /api%2Fscan) drops the parameters, a segment ";x" included: it is an empty segment.
        HttpServletRequest request = ambiguous(uri, TestServer.CONTEXT);

        assertThat(Endpoints.decodedPathOf(request)).isEqualTo(path);
        assertThat(Endpoints.pathOf(request)).isEqualTo(path);
    }

    @ParameterizedTest(name = "{0} in {1} -> {2}")
    @CsvSource({
            "/api/scan,  '',    /api/scan",
            "/app,       /app,  /",
            "/app/,      /app,  /",
            "/app/%61pi/scan, /app, /api/scan",
    })
    void anAmbiguousUriIsTakenRelativeToItsContext(String uri, String context, String path) {
        assertThat(Endpoints.decodedPathOf(ambiguous(uri, context))).isEqualTo(path);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/app/api/%a", "/app/api/%", "/app/api/%u002", "/app/api/%u00", "/app/api/%zz", "/app/api/%u00zz", "/apps/api/scan"})
    void anAmbiguousUriWithATruncatedOrMalformedEncodingOrOutsideTheContextIsAnIllegalArgument(String uri) {
        // What decodedPathOf promises; any other exception would be a crash, not a refusal of the URI.
        assertThatThrownBy(() -> Endpoints.decodedPathOf(ambiguous(uri, TestServer.CONTEXT)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * A request whose {@code getServletPath()} refuses to answer, as Jetty's does for an ambiguous URI
     * under {@code UriCompliance.LEGACY}: the path can only come from its URI.
     */
    private static HttpServletRequest ambiguous(String requestUri, String contextPath) {
        return (HttpServletRequest) Proxy.newProxyInstance(EndpointsTest.class.getClassLoader(),
                new Class<?>[] {HttpServletRequest.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getRequestURI" -> requestUri;
                    case "getContextPath" -> contextPath;
                    case "getDispatcherType" -> DispatcherType.REQUEST;
                    case "getServletPath", "getPathInfo" -> throw new IllegalArgumentException("ambiguous URI");
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    /** Rule "api" ({@code firstMethod firstPath}), then rule "scan", each with a limit. */
    private static RateLimitConfig twoRules(String firstMethod, String firstPath, String method, String path) {
        return RateLimitConfig.builder()
                .endpoint(EndpointRule.of(firstMethod, firstPath, "api"))
                .endpoint(EndpointRule.of(method, path, "scan"))
                .limit("free", "api", Policy.fixedWindow(100, Duration.ofMinutes(1)))
                .limit("free", "scan", Policy.tokenBucket(2, 1, Duration.ofSeconds(1)))
                .build();
    }
}
