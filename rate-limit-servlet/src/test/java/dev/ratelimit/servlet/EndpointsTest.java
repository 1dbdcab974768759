package dev.ratelimit.servlet;

import dev.ratelimit.config.EndpointRule;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

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
    }
}
