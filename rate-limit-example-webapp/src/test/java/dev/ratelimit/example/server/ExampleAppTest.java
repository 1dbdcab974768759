package dev.ratelimit.example.server;

import dev.ratelimit.ManualClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The executable example's app on a real Jetty with a manual clock: endpoints, tiers, limits and settings. */
class ExampleAppTest {
    /** A minute boundary, so that fixed windows start here. */
    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    private RunningExample app;

    @AfterEach
    void stop() {
        if (app != null) {
            app.close();
        }
    }

    @Test
    void answersTheSeedsJsonOnEveryEndpoint() {
        app = RunningExample.start(clock);

        HttpResponse<String> scan = app.get("/api/scan");
        HttpResponse<String> reports = app.get("/api/reports");
        HttpResponse<String> login = app.send("POST", "/api/login", "{\"user\":\"demo\"}", "Content-Type", "application/json");
        HttpResponse<String> health = app.get("/health");

        assertThat(List.of(scan.statusCode(), reports.statusCode(), login.statusCode(), health.statusCode())).containsExactly(200, 200, 200, 200);
        assertThat(scan.body()).isEqualTo("{\"status\":\"scanning\"}");
        assertThat(reports.body()).isEqualTo("{\"reports\":[]}");
        assertThat(login.body()).isEqualTo("{\"token\":\"mock-jwt\"}");
        assertThat(health.body()).isEqualTo("{\"status\":\"UP\",\"store\":\"up\"}");
        assertThat(scan.headers().firstValue("Content-Type")).hasValue("application/json");
    }

    @Test
    void aTrailingSlashIsTheSameEndpointForTheFilterAndForTheApp() {
        app = RunningExample.start(clock);

        HttpResponse<String> slashed = app.get("/api/scan/", "X-API-Key", "sk-free-slash");
        HttpResponse<String> plain = app.get("/api/scan", "X-API-Key", "sk-free-slash");

        // Counted as /api/scan, so answered as /api/scan: not a 404 that spent the client's quota.
        assertThat(slashed.statusCode()).isEqualTo(200);
        assertThat(slashed.body()).isEqualTo("{\"status\":\"scanning\"}");
        assertThat(slashed.headers().firstValue("X-RateLimit-Remaining")).hasValue("9");
        assertThat(plain.headers().firstValue("X-RateLimit-Remaining")).hasValue("8");
    }

    @Test
    void withTheFilterOffNothingIsLimitedAndNoRateLimitHeadersAreSent() {
        app = RunningExample.start(clock, "--filter=off");

        for (int i = 0; i < 15; i++) {
            HttpResponse<String> r = app.get("/api/scan", "X-API-Key", "sk-free-demo");
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().map().keySet()).noneMatch(name -> name.toLowerCase().contains("ratelimit"));
        }
        assertThat(app.server().app().storeDescription()).startsWith("OFF: no rate-limit filter is installed");
    }

    @Test
    void freeScanAdmitsItsBurstOfTenThenAnswers429WithRetryAfterUntilATokenIsBack() {
        app = RunningExample.start(clock);
        List<String> remaining = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            HttpResponse<String> r = app.get("/api/scan", "X-API-Key", "sk-free-demo");
            assertThat(r.statusCode()).isEqualTo(200);
            remaining.add(r.headers().firstValue("X-RateLimit-Remaining").orElseThrow());
        }

        HttpResponse<String> refused = app.get("/api/scan", "X-API-Key", "sk-free-demo");
        clock.advance(Duration.ofSeconds(1));
        HttpResponse<String> afterOneSecond = app.get("/api/scan", "X-API-Key", "sk-free-demo");

        assertThat(remaining).containsExactly("9", "8", "7", "6", "5", "4", "3", "2", "1", "0");
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(refused.headers().firstValue("RateLimit")).hasValue("\"scan\";r=0;t=1");
        assertThat(refused.headers().firstValue("RateLimit-Policy")).hasValue("\"scan\";q=10;w=10");
        assertThat(refused.headers().firstValue("X-RateLimit-Tier")).hasValue("free");
        assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(refused.body()).contains("\"status\":429", "\"retry_after\":1", "\"tier\":\"free\"", "\"endpoint\":\"scan\"", "\"limit\":10")
                .doesNotContain("sk-free-demo");
        assertThat(afterOneSecond.statusCode()).isEqualTo(200);
    }

    @Test
    void eachTierGetsItsOwnLimitsByKeyPrefixAndNoKeyIsFree() {
        app = RunningExample.start(clock);

        assertThat(limitAndTier(app.get("/api/scan"))).isEqualTo("10 free");
        assertThat(limitAndTier(app.get("/api/scan", "X-API-Key", "sk-free-a"))).isEqualTo("10 free");
        assertThat(limitAndTier(app.get("/api/scan", "X-API-Key", "sk-pro-a"))).isEqualTo("100 pro");
        assertThat(limitAndTier(app.get("/api/scan", "X-API-Key", "sk-ent-a"))).isEqualTo("500 enterprise");
        assertThat(limitAndTier(app.get("/api/reports", "X-API-Key", "sk-pro-a"))).isEqualTo("1000 pro");
        assertThat(limitAndTier(app.send("POST", "/api/login", "{}", "X-API-Key", "sk-ent-a"))).isEqualTo("200 enterprise");
        assertThat(limitAndTier(app.get("/api/scan", "X-API-Key", "someone-else"))).isEqualTo("10 free");
    }

    @Test
    void freeLoginAllowsFiveAMinuteAndTheSixthWaitsForTheNextMinute() {
        app = RunningExample.start(clock);
        clock.advance(Duration.ofSeconds(20));
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            statuses.add(app.send("POST", "/api/login", "{}", "X-API-Key", "sk-free-login").statusCode());
        }
        HttpResponse<String> sixth = app.send("POST", "/api/login", "{}", "X-API-Key", "sk-free-login");
        clock.advance(Duration.ofSeconds(40));
        int nextMinute = app.send("POST", "/api/login", "{}", "X-API-Key", "sk-free-login").statusCode();

        assertThat(statuses).containsExactly(200, 200, 200, 200, 200);
        assertThat(sixth.statusCode()).isEqualTo(429);
        assertThat(sixth.headers().firstValue("Retry-After")).hasValue("40");
        assertThat(nextMinute).isEqualTo(200);
    }

    @Test
    void healthIsNeverLimited() {
        app = RunningExample.start(clock);
        for (int i = 0; i < 30; i++) {
            HttpResponse<String> r = app.get("/health");
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("X-RateLimit-Limit")).isEmpty();
        }
    }

    @Test
    void answersOtherMethodsWith405AndOtherPathsWith404() {
        app = RunningExample.start(clock);

        HttpResponse<String> getLogin = app.get("/api/login");
        HttpResponse<String> postScan = app.send("POST", "/api/scan", "{}");
        HttpResponse<String> unknown = app.get("/api/nothing-here");

        assertThat(getLogin.statusCode()).isEqualTo(405);
        assertThat(getLogin.headers().firstValue("Allow")).hasValue("POST");
        assertThat(postScan.statusCode()).isEqualTo(405);
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(unknown.body()).isEqualTo("{\"error\":\"not found\"}");
    }

    @Test
    void servesHeadWhereverGetIsServedAndCountsItUnderTheGetLimit() {
        app = RunningExample.start(clock);

        HttpResponse<String> head = app.send("HEAD", "/api/scan", null, "X-API-Key", "sk-free-head");
        HttpResponse<String> get = app.get("/api/scan", "X-API-Key", "sk-free-head");

        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.body()).isEmpty();
        assertThat(head.headers().firstValue("X-RateLimit-Remaining")).hasValue("9");
        assertThat(get.headers().firstValue("X-RateLimit-Remaining")).hasValue("8");
        assertThat(app.send("HEAD", "/api/login", null).headers().firstValue("Allow")).hasValue("POST");
        assertThat(app.send("PUT", "/api/scan", "{}").headers().firstValue("Allow")).hasValue("GET, HEAD");
    }

    @Test
    void refusesALoginBodyOver16KiB() {
        app = RunningExample.start(clock);

        HttpResponse<String> r = app.send("POST", "/api/login", "x".repeat(16 * 1024 + 1), "X-API-Key", "sk-pro-big");

        assertThat(r.statusCode()).isEqualTo(413);
    }

    @Test
    void aConfigFileReplacesTheBundledTiers(@TempDir Path dir) throws IOException {
        Path config = dir.resolve("tiers.json");
        Files.writeString(config, """
                {
                  "defaultTier": "basic",
                  "tierPrefixes": { "sk-gold-": "gold" },
                  "endpoints": [ { "method": "GET", "path": "/api/scan", "name": "scan" } ],
                  "tiers": {
                    "basic": { "scan": { "algorithm": "fixed_window", "limit": 2, "window": "10s" } },
                    "gold":  { "scan": { "algorithm": "fixed_window", "limit": 3, "window": "10s" } }
                  }
                }
                """);
        app = RunningExample.start(clock, "--config=" + config);

        List<Integer> basic = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            basic.add(app.get("/api/scan").statusCode());
        }
        HttpResponse<String> gold = app.get("/api/scan", "X-API-Key", "sk-gold-1");
        int reportsUnlimited = app.get("/api/reports").statusCode();

        assertThat(basic).containsExactly(200, 200, 429);
        assertThat(limitAndTier(gold)).isEqualTo("3 gold");
        assertThat(reportsUnlimited).isEqualTo(200);
    }

    @Test
    void believesXForwardedForOnlyFromTrustedProxies() {
        app = RunningExample.start(clock);
        for (int i = 0; i < 10; i++) {
            app.get("/api/scan", "X-Forwarded-For", "203.0.113." + i);
        }
        int spoofed = app.get("/api/scan", "X-Forwarded-For", "203.0.113.99").statusCode();
        app.close();

        app = RunningExample.start(clock, "--trusted-proxies=127.0.0.1/32");
        for (int i = 0; i < 10; i++) {
            app.get("/api/scan", "X-Forwarded-For", "203.0.113.1");
        }
        int sameClient = app.get("/api/scan", "X-Forwarded-For", "203.0.113.1").statusCode();
        int otherClient = app.get("/api/scan", "X-Forwarded-For", "203.0.113.2").statusCode();

        assertThat(spoofed).as("untrusted peer: all ten came from 127.0.0.1").isEqualTo(429);
        assertThat(sameClient).isEqualTo(429);
        assertThat(otherClient).isEqualTo(200);
    }

    private static String limitAndTier(HttpResponse<String> r) {
        return r.headers().firstValue("X-RateLimit-Limit").orElse("-") + " " + r.headers().firstValue("X-RateLimit-Tier").orElse("-");
    }
}
