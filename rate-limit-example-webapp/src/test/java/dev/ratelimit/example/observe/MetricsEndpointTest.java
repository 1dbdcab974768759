package dev.ratelimit.example.observe;

import dev.ratelimit.Clock;
import dev.ratelimit.ManualClock;
import dev.ratelimit.example.server.RunningExample;
import dev.ratelimit.testing.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code /metrics} of the real app after scripted requests: exact counts by tier, endpoint, algorithm
 * and outcome, the near-limit counter, the remaining-quota histogram, tracked keys, and the Redis
 * store's calls, errors and health through an outage. A manual clock keeps every limit still.
 */
class MetricsEndpointTest {
    /** A minute boundary, so that fixed windows start here. */
    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    private RunningExample app;

    @AfterEach
    void stop() {
        if (app != null) {
            app.close();
        }
    }

    private Scrape scrape() {
        HttpResponse<String> metrics = app.get("/metrics");
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.headers().firstValue("Content-Type")).hasValue(MetricsServlet.CONTENT_TYPE);
        return Scrape.parse(metrics.body());
    }

    private List<Integer> statuses(int times, String method, String path, String... headers) {
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < times; i++) {
            statuses.add(app.send(method, path, null, headers).statusCode());
        }
        return statuses;
    }

    @Test
    void countsTwelveFreeScansAsTenAllowedAndTwoRejectedAndEveryOtherDecisionExactly() {
        app = RunningExample.start(clock);

        List<Integer> scans = statuses(12, "GET", "/api/scan", "X-API-Key", "sk-free-a");
        List<Integer> logins = statuses(6, "POST", "/api/login");
        List<Integer> reports = statuses(3, "GET", "/api/reports", "X-API-Key", "sk-pro-b");
        Scrape m = scrape();

        assertThat(scans).containsExactly(200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 429, 429);
        assertThat(logins).containsExactly(200, 200, 200, 200, 200, 429);
        assertThat(reports).containsExactly(200, 200, 200);
        assertThat(m.decisions("free", "scan", "token_bucket", "allowed")).isEqualTo(10);
        assertThat(m.decisions("free", "scan", "token_bucket", "rejected")).isEqualTo(2);
        assertThat(m.decisions("free", "scan", "token_bucket", "shadow_rejected")).isZero();
        assertThat(m.decisions("free", "scan", "token_bucket", "fallback_allowed")).isZero();
        assertThat(m.decisions("free", "login", "fixed_window", "allowed")).isEqualTo(5);
        assertThat(m.decisions("free", "login", "fixed_window", "rejected")).isEqualTo(1);
        assertThat(m.decisions("pro", "reports", "sliding_window_counter", "allowed")).isEqualTo(3);
        // Under 20% left after an allowed request: scan's 1 and 0 of 10, login's 0 of 5.
        assertThat(m.value("ratelimit_near_limit_total{endpoint=\"scan\",tier=\"free\"}")).isEqualTo(2);
        assertThat(m.value("ratelimit_near_limit_total{endpoint=\"login\",tier=\"free\"}")).isEqualTo(1);
        assertThat(m.value("ratelimit_near_limit_total{endpoint=\"reports\",tier=\"pro\"}")).isZero();
        // Remaining for scan: 90% ... 10%, 0%, then 0% and 0% for the two 429s.
        assertThat(m.value("ratelimit_remaining_percent_count{endpoint=\"scan\",tier=\"free\"}")).isEqualTo(12);
        assertThat(m.value("ratelimit_remaining_percent_bucket{endpoint=\"scan\",tier=\"free\",le=\"10.0\"}")).isEqualTo(4);
        assertThat(m.value("ratelimit_remaining_percent_bucket{endpoint=\"scan\",tier=\"free\",le=\"50.0\"}")).isEqualTo(8);
        assertThat(m.value("ratelimit_decision_seconds_count")).isEqualTo(21);
        assertThat(m.value("ratelimit_tracked_keys")).as("sk-free-a, 127.0.0.1 on login, sk-pro-b").isEqualTo(3);
        assertThat(m.value("ratelimit_store_health{state=\"up\"}")).isEqualTo(1);
        assertThat(m.value("ratelimit_store_seconds_count{result=\"ok\"}")).as("the in-memory store makes no store calls").isZero();
    }

    @Test
    void listsEveryTiersAndEndpointsSeriesAtZeroBeforeTheFirstRequest() {
        // Prometheus' increase() counts only growth between two scrapes: a series born at 5 would hide
        // the burst of 429s that created it, the first after every restart.
        app = RunningExample.start(clock);

        Scrape m = scrape();

        for (String tier : List.of("free", "pro", "enterprise")) {
            assertThat(m.decisions(tier, "scan", "token_bucket", "allowed")).isZero();
            assertThat(m.decisions(tier, "scan", "token_bucket", "rejected")).isZero();
            assertThat(m.decisions(tier, "login", "fixed_window", "rejected")).isZero();
            assertThat(m.value("ratelimit_near_limit_total{endpoint=\"scan\",tier=\"" + tier + "\"}")).isZero();
            assertThat(m.value("ratelimit_remaining_percent_bucket{endpoint=\"login\",tier=\"" + tier + "\",le=\"10.0\"}")).isZero();
        }
        assertThat(m.decisions("pro", "reports", "sliding_window_counter", "fallback_rejected")).isZero();
    }

    @Test
    void countsAMalformedApiKeyAsUndecidedNotAsADecision() {
        app = RunningExample.start(clock);

        List<Integer> statuses = statuses(3, "GET", "/api/scan", "X-API-Key", "sk-free-a b");
        Scrape m = scrape();

        assertThat(statuses).containsOnly(400);
        assertThat(m.value("ratelimit_undecided_total{outcome=\"refused\",reason=\"invalid_client\"}")).isEqualTo(3);
        assertThat(m.value("ratelimit_undecided_total{outcome=\"passed\",reason=\"invalid_client\"}")).isZero();
        assertThat(m.value("ratelimit_undecided_total{outcome=\"refused\",reason=\"failure\"}")).isZero();
        assertThat(m.value("ratelimit_decision_seconds_count")).isZero();
        assertThat(m.value("ratelimit_tracked_keys")).isZero();
    }

    @Test
    void countsClientsEvictedAtTheInMemoryCapWhileTheirStateStillCounted() {
        app = RunningExample.start(clock, "--max-keys-per-limit=2");
        assertThat(scrape().value("ratelimit_evictions_total")).isZero();

        for (String key : List.of("sk-free-a", "sk-free-b", "sk-free-c")) {
            statuses(1, "POST", "/api/login", "X-API-Key", key); // each spends 1 of 5 logins this minute
        }

        Scrape m = scrape();
        assertThat(m.value("ratelimit_evictions_total")).as("the third client's key pushed one out").isEqualTo(1);
        assertThat(m.value("ratelimit_tracked_keys")).isEqualTo(2);
    }

    @Test
    void trackedKeysFallOnceTheClientsStateIsFreshAgain() {
        app = RunningExample.start(clock);
        statuses(3, "GET", "/api/scan", "X-API-Key", "sk-free-a");
        statuses(2, "POST", "/api/login");
        assertThat(scrape().value("ratelimit_tracked_keys")).isEqualTo(2);

        clock.advance(Duration.ofSeconds(4)); // the scan bucket is full again, the login window is not over
        assertThat(scrape().value("ratelimit_tracked_keys")).as("at most one sweep every 5 s").isEqualTo(2);
        clock.advance(Duration.ofSeconds(1));
        assertThat(scrape().value("ratelimit_tracked_keys")).isEqualTo(1);

        clock.advance(Duration.ofDays(1)); // every bundled limit is whole again; no new key arrives to sweep them
        assertThat(scrape().value("ratelimit_tracked_keys")).isZero();
    }

    @Test
    void neitherMetricsNorTheDashboardIsRateLimited() {
        app = RunningExample.start(clock);
        app.get("/api/scan", "X-API-Key", "sk-free-a");

        List<Integer> metrics = statuses(15, "GET", "/metrics");
        List<Integer> dashboard = statuses(15, "GET", "/dashboard");
        HttpResponse<String> last = app.get("/metrics");

        assertThat(metrics).containsOnly(200).hasSize(15);
        assertThat(dashboard).containsOnly(200).hasSize(15);
        assertThat(last.headers().firstValue("RateLimit")).isEmpty();
        assertThat(last.headers().firstValue("X-RateLimit-Remaining")).isEmpty();
        assertThat(Scrape.parse(last.body()).value("ratelimit_decision_seconds_count")).isEqualTo(1);
    }

    @Test
    void servesThePageItsScriptAndStyleFromTheAppAndNothingElseUnderDashboard() {
        app = RunningExample.start(clock);

        HttpResponse<String> page = app.get("/dashboard");
        HttpResponse<String> script = app.get("/dashboard/dashboard.js");
        HttpResponse<String> style = app.get("/dashboard/dashboard.css");
        HttpResponse<String> other = app.get("/dashboard/../../etc/passwd");
        HttpResponse<String> unknown = app.get("/dashboard/chart.min.js");

        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(contentType(page)).isEqualTo("text/html;charset=utf-8");
        assertThat(page.headers().firstValue("Content-Security-Policy")).hasValue("default-src 'self'; img-src 'self' data:");
        assertThat(page.body()).contains("<script src=\"/dashboard/dashboard.js\"></script>",
                "<link rel=\"stylesheet\" href=\"/dashboard/dashboard.css\">", "id=\"total-429\"");
        assertThat(script.statusCode()).isEqualTo(200);
        assertThat(contentType(script)).isEqualTo("text/javascript;charset=utf-8");
        assertThat(script.body()).contains("fetch('/metrics'");
        assertThat(style.statusCode()).isEqualTo(200);
        assertThat(contentType(style)).isEqualTo("text/css;charset=utf-8");
        // Nothing from another host: every link of the page is a path of this app, the script only
        // fetches /metrics, the style sheet imports nothing. (The browser test watches real requests.)
        assertThat(Pattern.compile("(?:src|href)=\"([^\"]*)\"").matcher(page.body()).results()
                .map(r -> r.group(1)).toList()).as("an empty inline icon, then paths of this app")
                .containsExactly("data:,", "/dashboard/dashboard.css", "/metrics", "/dashboard/dashboard.js");
        assertThat(Pattern.compile("fetch\\(([^,)]*)").matcher(script.body()).results()
                .map(r -> r.group(1)).toList()).containsExactly("'/metrics'");
        assertThat(style.body()).doesNotContain("url(", "@import");
        assertThat(other.statusCode()).isIn(400, 404);
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(unknown.body()).as("the app's 404, as on every other path").isEqualTo("{\"error\":\"not found\"}");
    }

    @Test
    void reportsStoreCallsErrorsAndEachHealthChangeThroughARedisOutage() {
        try (RedisServer redis = RedisServer.start()) {
            app = RunningExample.start(clock, Map.of("REDIS_URL", redis.url()));
            List<Integer> before = statuses(3, "GET", "/api/scan", "X-API-Key", "sk-free-r");
            Scrape up = scrape();

            redis.kill();
            // Five failed calls open the circuit (the default threshold); the sixth is not even tried.
            List<Integer> during = statuses(6, "GET", "/api/scan", "X-API-Key", "sk-free-r");
            Scrape down = scrape();
            HttpResponse<String> healthDown = app.get("/health");

            redis.restart();
            clock.advance(Duration.ofSeconds(2));
            List<Integer> after = statuses(1, "GET", "/api/scan", "X-API-Key", "sk-free-r");
            Scrape back = scrape();

            assertThat(before).containsExactly(200, 200, 200);
            assertThat(up.value("ratelimit_store_seconds_count{result=\"ok\"}")).isEqualTo(3);
            assertThat(up.decisions("free", "scan", "token_bucket", "allowed")).isEqualTo(3);
            assertThat(up.value("ratelimit_store_health{state=\"up\"}")).isEqualTo(1);

            assertThat(during).as("decided by the local fallback").containsOnly(200).hasSize(6);
            assertThat(down.decisions("free", "scan", "token_bucket", "fallback_allowed")).isEqualTo(6);
            assertThat(down.value("ratelimit_store_errors_total")).isEqualTo(5);
            assertThat(down.value("ratelimit_store_seconds_count{result=\"error\"}")).isEqualTo(5);
            assertThat(down.value("ratelimit_store_health{state=\"circuit_open\"}")).isEqualTo(1);
            assertThat(down.value("ratelimit_store_health{state=\"up\"}")).isZero();
            assertThat(down.value("ratelimit_store_health_changes_total{from=\"up\",to=\"degraded\"}")).isEqualTo(1);
            assertThat(down.value("ratelimit_store_health_changes_total{from=\"degraded\",to=\"circuit_open\"}")).isEqualTo(1);
            assertThat(healthDown.statusCode()).as("the app still serves: every instance shares the store").isEqualTo(200);
            assertThat(healthDown.body()).isEqualTo("{\"status\":\"UP\",\"store\":\"circuit_open\"}");

            assertThat(after).containsExactly(200);
            assertThat(back.value("ratelimit_store_health{state=\"up\"}")).isEqualTo(1);
            assertThat(back.value("ratelimit_store_health_changes_total{from=\"circuit_open\",to=\"up\"}")).isEqualTo(1);
            assertThat(back.value("ratelimit_store_seconds_count{result=\"ok\"}")).isEqualTo(4);
            assertThat(back.decisions("free", "scan", "token_bucket", "allowed")).isEqualTo(4);
            assertThat(app.get("/health").body()).isEqualTo("{\"status\":\"UP\",\"store\":\"up\"}");
        }
    }

    private static String contentType(HttpResponse<String> response) {
        return response.headers().firstValue("Content-Type").orElse("").replace(" ", "").toLowerCase(Locale.ROOT);
    }

    /** Real time on the Redis store: decision latency includes a real round trip. */
    @Test
    void timesDecisionsAndStoreCallsSeparately() {
        try (RedisServer redis = RedisServer.start()) {
            app = RunningExample.start(Clock.system(), Map.of("REDIS_URL", redis.url()));
            statuses(4, "GET", "/api/reports", "X-API-Key", "sk-pro-t");
            Scrape m = scrape();

            assertThat(m.value("ratelimit_decision_seconds_count")).isEqualTo(4);
            assertThat(m.value("ratelimit_store_seconds_count{result=\"ok\"}")).isEqualTo(4);
            assertThat(m.value("ratelimit_decision_seconds_sum")).isPositive()
                    .isGreaterThanOrEqualTo(m.value("ratelimit_store_seconds_sum{result=\"ok\"}"));
        }
    }
}
