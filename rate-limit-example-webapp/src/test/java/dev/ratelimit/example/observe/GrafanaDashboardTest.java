package dev.ratelimit.example.observe;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ratelimit.ManualClock;
import dev.ratelimit.example.server.RunningExample;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code observability/grafana-dashboard.json} and {@code observability/prometheus.yml} against the
 * real app: every metric the dashboard queries is in {@code /metrics} after some traffic, every panel
 * reads the data source chosen in the {@code datasource} variable, and Prometheus scrapes {@code /metrics}.
 */
class GrafanaDashboardTest {
    private static final Pattern METRIC = Pattern.compile("\\bratelimit_[a-z_]+\\b");
    private final Path observability = Path.of(System.getProperty("basedir", "")).toAbsolutePath().resolveSibling("observability");

    @Test
    void everyMetricTheGrafanaDashboardQueriesIsServedByTheApp() throws IOException {
        JsonNode dashboard = new ObjectMapper().readTree(observability.resolve("grafana-dashboard.json").toFile());
        List<String> queries = new ArrayList<>();
        dashboard.findValues("expr").forEach(e -> queries.add(e.asText()));
        dashboard.findValues("definition").forEach(e -> queries.add(e.asText()));
        Set<String> queried = new TreeSet<>();
        for (String query : queries) {
            Matcher m = METRIC.matcher(query);
            while (m.find()) {
                queried.add(m.group());
            }
        }

        Set<String> served;
        try (RunningExample app = RunningExample.start(new ManualClock(Instant.parse("2026-01-01T00:00:00Z")))) {
            for (int i = 0; i < 12; i++) {
                app.get("/api/scan", "X-API-Key", "sk-free-grafana");
            }
            app.send("POST", "/api/login", null);
            served = Scrape.parse(app.get("/metrics").body()).names();
        }

        assertThat(queries).hasSizeGreaterThanOrEqualTo(15);
        assertThat(queried).as("metrics the dashboard queries").contains(
                "ratelimit_decisions_total", "ratelimit_decision_seconds_bucket", "ratelimit_remaining_percent_bucket",
                "ratelimit_store_health", "ratelimit_tracked_keys", "ratelimit_near_limit_total", "ratelimit_store_seconds_bucket",
                "ratelimit_store_errors_total", "ratelimit_store_health_changes_total");
        assertThat(served).as("sample names in /metrics").containsAll(queried);
    }

    @Test
    void everyPanelReadsTheDataSourceChosenInTheDatasourceVariable() throws IOException {
        JsonNode dashboard = new ObjectMapper().readTree(observability.resolve("grafana-dashboard.json").toFile());
        JsonNode variable = dashboard.path("templating").path("list").get(0);

        assertThat(variable.path("name").asText()).isEqualTo("datasource");
        assertThat(variable.path("type").asText()).isEqualTo("datasource");
        assertThat(variable.path("query").asText()).isEqualTo("prometheus");
        for (JsonNode panel : dashboard.path("panels")) {
            if (!panel.path("type").asText().equals("row")) {
                assertThat(panel.path("datasource").path("uid").asText()).as(panel.path("title").asText()).isEqualTo("${datasource}");
                for (JsonNode target : panel.path("targets")) {
                    assertThat(target.path("datasource").path("uid").asText()).as(panel.path("title").asText()).isEqualTo("${datasource}");
                }
            }
        }
    }

    @Test
    void prometheusScrapesTheAppsMetricsPath() throws IOException {
        String config = Files.readString(observability.resolve("prometheus.yml"));

        assertThat(config).contains("metrics_path: /metrics", "- targets: ['localhost:8080']");
        assertThat(Duration.ofSeconds(Long.parseLong(config.replaceAll("(?s).*scrape_interval: (\\d+)s.*", "$1"))))
                .as("scrape interval").isLessThanOrEqualTo(Duration.ofSeconds(15));
    }
}
