package dev.ratelimit.example.observe;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ratelimit.Clock;
import dev.ratelimit.example.server.RunningExample;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard in a real browser: the app on a free port, a burst that produces 429s, then
 * {@code src/test/browser/dashboard.mjs} (playwright-core driving Debian's headless Chromium) loads
 * {@code /dashboard}, waits until it shows 429s and saves {@code target/dashboard.png}. Light traffic
 * keeps flowing meanwhile (bounded: it stops with the script, after 45 s at most), so that the
 * per-minute charts have something to draw. Needs {@code /usr/bin/chromium} and Node.js 20 (see
 * {@link BrowserTools}); without them it fails and says what to install.
 */
class DashboardBrowserTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void showsTheBurstsRejectionsInChromiumAndSavesAScreenshot() throws Exception {
        BrowserTools tools = BrowserTools.require();
        Path screenshot = tools.moduleDir().resolve("target/dashboard.png");
        Files.deleteIfExists(screenshot);

        try (RunningExample app = RunningExample.start(Clock.system())) {
            int rejected = 0;
            for (int i = 0; i < 15; i++) {
                rejected += app.get("/api/scan", "X-API-Key", "sk-free-burst").statusCode() == 429 ? 1 : 0;
            }
            assertThat(rejected).as("a token bucket of 10 refilled 1/s refuses some of 15 at once").isPositive();

            AtomicBoolean done = new AtomicBoolean();
            ExecutorService traffic = Executors.newSingleThreadExecutor();
            Future<?> background = traffic.submit(() -> steadyTraffic(app, done));
            BrowserTools.Result result;
            try {
                result = tools.runNode("dashboard.mjs", app.uri().toString(), screenshot.toString(), "4");
            } finally {
                done.set(true);
                background.get(10, TimeUnit.SECONDS);
                traffic.shutdown();
            }

            assertThat(result.exitCode()).as("dashboard.mjs said:%n%s", result.output()).isZero();
            JsonNode shown = JSON.readTree(result.lastLine());
            assertThat(shown.get("total429").asLong()).as("429s since start, as the page shows them").isGreaterThanOrEqualTo(rejected);
            assertThat(shown.get("last429PerMinute").asLong()).isPositive();
            assertThat(shown.get("health").asText()).isEqualTo("up");
            assertThat(shown.get("evictions").asText()).as("in memory, far below the cap: none evicted").isEqualTo("0");
            assertThat(shown.get("latency").asText()).matches("[0-9.]+ (µs|ms) / [0-9.]+ (µs|ms)");
            assertThat(shown.get("legend429").asText()).contains("free / scan");
            List<String> requests = new ArrayList<>();
            shown.get("requests").forEach(r -> requests.add(r.asText()));
            assertThat(requests).as("everything comes from the app itself").containsExactly(
                    app.uri() + "/dashboard", app.uri() + "/dashboard/dashboard.css", app.uri() + "/dashboard/dashboard.js",
                    app.uri() + "/metrics");
            assertThat(shown.get("errors")).as("script errors").isEmpty();
        }
        assertThat(screenshot).exists();
        byte[] png = Files.readAllBytes(screenshot);
        assertThat(png.length).isGreaterThan(20_000);
        assertThat(new String(png, 1, 3, StandardCharsets.US_ASCII)).isEqualTo("PNG");
    }

    /**
     * A long session on the page's fake clock, from {@code src/test/browser/dashboard-replay.mjs}: 12
     * tiers each refused once and allowed 10 times a second, the app restarting at poll 70, 440 polls.
     * The tiles (429s, allowed, evictions) count across the restart as Prometheus' increase() does, the
     * remaining-quota bars never go negative, a steady rate draws a flat line over all five minutes,
     * and no two series share a color.
     */
    @Test
    void countsAcrossARestartAndDrawsALongSessionOfManySeries() throws Exception {
        BrowserTools tools = BrowserTools.require();
        try (RunningExample app = RunningExample.start(Clock.system())) {
            BrowserTools.Result result = tools.runNode("dashboard-replay.mjs", app.uri().toString(), "440");
            assertThat(result.exitCode()).as("dashboard-replay.mjs said:%n%s", result.output()).isZero();
            JsonNode shown = JSON.readTree(result.lastLine());
            assertThat(shown.get("errors")).as("script errors").isEmpty();
            JsonNode polls = shown.get("polls");
            for (int p = 11; p < 440; p++) {
                JsonNode poll = polls.get(p);
                if (p >= 70) {
                    assertThat(poll.get("total429").asText()).as("429s since the app restarted, poll %d", p)
                            .isEqualTo(String.valueOf(12 * (p - 70)));
                }
                // The minute before poll p: 12 a second, but nothing in the second the app restarted.
                assertThat(poll.get("rate429").asText()).as("429s in the last minute, poll %d", p)
                        .isEqualTo(p < 60 ? String.valueOf(12 * p) : p >= 70 && p < 130 ? "708" : "720");
                assertThat(poll.get("evictions").asText()).as("clients evicted in the last minute, poll %d", p)
                        .isEqualTo(p < 60 ? String.valueOf(3 * p) : p >= 70 && p < 130 ? "177" : "180");
                assertThat(poll.get("allowed").asText()).as("allowed / s over 10 s, poll %d", p)
                        .isEqualTo(p >= 70 && p < 80 ? "108" : "120");
                assertThat(poll.get("negativeHeights").asInt()).as("negative bars, poll %d", p).isZero();
            }
            List<String> strokes = new ArrayList<>();
            for (JsonNode path : shown.get("chart429")) {
                assertThat(path.get("ys")).as("a steady 60 429s a minute is a flat line: %s", path).hasSize(1);
                strokes.add(path.get("stroke").asText());
            }
            assertThat(strokes).as("colors of the 429 lines").hasSize(12).doesNotHaveDuplicates();
            List<String> allowed = new ArrayList<>();
            shown.get("chartAllowed").forEach(path -> allowed.add(path.get("stroke").asText()));
            assertThat(allowed).as("colors of the allowed lines").hasSize(12).doesNotHaveDuplicates();
            assertThat(shown.get("samples").asInt()).as("samples kept: six minutes").isBetween(300, 362);
        }
    }

    /** About 30 requests a second until told to stop, and never longer than 45 s. */
    private static void steadyTraffic(RunningExample app, AtomicBoolean done) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(45);
        while (!done.get() && System.nanoTime() < deadline) {
            app.get("/api/scan", "X-API-Key", "sk-free-steady");
            app.get("/api/scan", "X-API-Key", "sk-pro-steady");
            app.send("POST", "/api/login", null);
            try {
                TimeUnit.MILLISECONDS.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
