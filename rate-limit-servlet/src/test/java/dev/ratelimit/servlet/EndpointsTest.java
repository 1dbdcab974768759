package dev.ratelimit.servlet;

import dev.ratelimit.InvalidConfigurationException;
import dev.ratelimit.Policy;
import dev.ratelimit.config.Allowlist;
import dev.ratelimit.config.EndpointRule;
import dev.ratelimit.config.RateLimitConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

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
            "/api/scan;jsessionid=1,  /api/scan",
            "/api;v=2/scan,           /api/scan",
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
                EndpointRule.of("*", "/api/**", "api"),
                EndpointRule.of("HEAD", "/api/head", "head")));

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
        for (String pattern : List.of("//*", "/api/scan/", "/api//scan", "/api/./scan", "/api/../scan", "/api;v=1/**")) {
            assertThatThrownBy(() -> Endpoints.requireNormalized("path", pattern)).as(pattern)
                    .isInstanceOf(InvalidConfigurationException.class);
        }
    }
}
