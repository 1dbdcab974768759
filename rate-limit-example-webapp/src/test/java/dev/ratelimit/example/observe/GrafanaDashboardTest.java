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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
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
    /** A selector such as {@code ratelimit_decisions_total{instance=~"$instance",outcome=~"a|b"}}. */
    private static final Pattern SELECTOR = Pattern.compile("\\b(ratelimit_[a-z_]+)\\{([^}]*)}");
    private static final Pattern MATCHER = Pattern.compile("([a-z_]+)\\s*(=~|!~|!=|=)\\s*\"([^\"]*)\"");
    private static final Pattern BY = Pattern.compile("\\bby\\s*\\(([^)]*)\\)");
    private static final Pattern RATE = Pattern.compile("\\b(?:rate|irate|increase)\\(\\s*(ratelimit_[a-z_]+)");
    private static final Pattern QUANTILE = Pattern.compile("histogram_quantile\\([^,]+,(.*)\\)");
    /** Labels that Prometheus adds at scrape time, not in {@code /metrics}. */
    private static final Set<String> TARGET_LABELS = Set.of("instance", "job");
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
                "ratelimit_store_errors_total", "ratelimit_store_health_changes_total", "ratelimit_undecided_total");
        assertThat(served).as("sample names in /metrics").containsAll(queried);
    }

    /**
     * Names alone are not enough: {@code outcome="rejected"} or {@code by (status)} would select nothing.
     * Every label a query filters or groups on is on that metric in {@code /metrics}, every value it
     * matches exactly (or in a plain {@code a|b} alternation) is one of that label's values there,
     * {@code rate}/{@code increase} only read counters and histogram series, {@code histogram_quantile}
     * reads {@code _bucket} series summed by {@code le} and a {@code _seconds} one is shown in seconds, and a
     * {@code format: heatmap} target keeps Grafana's {@code {{le}}} legend: Grafana sorts the buckets by
     * that name before it subtracts each from the next, so a legend like {@code <= {{le}}%} leaves them in
     * Prometheus' string order ("+Inf", "10.0", "100.0", "20.0", ...) and the bars come out wrong.
     */
    @Test
    void everyLabelAndValueTheGrafanaDashboardQueriesIsServedByTheApp() throws IOException {
        JsonNode dashboard = new ObjectMapper().readTree(observability.resolve("grafana-dashboard.json").toFile());
        String body;
        try (RunningExample app = RunningExample.start(new ManualClock(Instant.parse("2026-01-01T00:00:00Z")))) {
            for (int i = 0; i < 12; i++) {
                app.get("/api/scan", "X-API-Key", "sk-free-grafana");
            }
            app.send("POST", "/api/login", null);
            body = app.get("/metrics").body();
        }
        Map<String, Map<String, Set<String>>> labels = labelValues(Scrape.parse(body));
        Map<String, String> types = sampleTypes(body);

        List<String> problems = new ArrayList<>();
        int targets = 0;
        for (JsonNode panel : dashboard.findParents("targets")) {
            String title = panel.path("title").asText();
            for (JsonNode target : panel.path("targets")) {
                targets++;
                String expr = target.path("expr").asText();
                String where = title + " [" + target.path("refId").asText() + "] " + expr + ": ";
                Matcher selector = SELECTOR.matcher(expr);
                while (selector.find()) {
                    Map<String, Set<String>> onMetric = labels.getOrDefault(selector.group(1), Map.of());
                    Matcher m = MATCHER.matcher(selector.group(2));
                    while (m.find()) {
                        String label = m.group(1);
                        if (TARGET_LABELS.contains(label)) {
                            continue;
                        }
                        if (!onMetric.containsKey(label)) {
                            problems.add(where + selector.group(1) + " has no label " + label + ", only " + onMetric.keySet());
                            continue;
                        }
                        if (m.group(3).matches("[A-Za-z0-9_.+|]+")) {
                            for (String value : m.group(3).split("\\|")) {
                                if (!onMetric.get(label).contains(value)) {
                                    problems.add(where + label + "=\"" + value + "\" is not served, only " + onMetric.get(label));
                                }
                            }
                        }
                    }
                }
                Set<String> metrics = new TreeSet<>();
                Matcher metric = METRIC.matcher(expr);
                while (metric.find()) {
                    metrics.add(metric.group());
                }
                Matcher by = BY.matcher(expr);
                while (by.find()) {
                    for (String label : by.group(1).split(",")) {
                        label = label.trim();
                        for (String name : metrics) {
                            if (!label.isEmpty() && !TARGET_LABELS.contains(label)
                                    && !labels.getOrDefault(name, Map.of()).containsKey(label)) {
                                problems.add(where + "groups by " + label + ", which " + name + " does not have");
                            }
                        }
                    }
                }
                Matcher rate = RATE.matcher(expr);
                while (rate.find()) {
                    String type = types.get(rate.group(1));
                    if (!"counter".equals(type) && !"histogram".equals(type)) {
                        problems.add(where + "rate/increase over " + rate.group(1) + ", a " + type);
                    }
                }
                Matcher quantile = QUANTILE.matcher(expr);
                if (quantile.find()) {
                    String inner = quantile.group(1);
                    if (!inner.matches("(?s).*\\bby\\s*\\([^)]*\\ble\\b.*") || !inner.matches("(?s).*ratelimit_[a-z_]+_bucket\\b.*")) {
                        problems.add(where + "histogram_quantile needs _bucket series summed by le");
                    }
                    if (inner.contains("_seconds_bucket") && !panel.path("fieldConfig").path("defaults").path("unit").asText().equals("s")) {
                        problems.add(where + "a latency in seconds shown in unit " + panel.path("fieldConfig").path("defaults").path("unit"));
                    }
                }
                if (target.path("format").asText().equals("heatmap")) {
                    if (!target.path("legendFormat").asText().equals("{{le}}")) {
                        problems.add(where + "format heatmap with legend " + target.path("legendFormat") + ": Grafana sorts the buckets"
                                + " by that name before de-accumulating them, so it must be {{le}}");
                    }
                    if (!expr.matches("(?s).*\\bby\\s*\\(\\s*le\\s*\\).*_bucket\\b.*")) {
                        problems.add(where + "format heatmap needs _bucket series summed by (le)");
                    }
                }
            }
        }

        assertThat(targets).isGreaterThanOrEqualTo(15);
        assertThat(problems).as("dashboard queries against a real /metrics").isEmpty();
    }

    /** Sample name -> label -> the values it has in the scrape. */
    private static Map<String, Map<String, Set<String>>> labelValues(Scrape scrape) {
        Pattern label = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");
        Map<String, Map<String, Set<String>>> labels = new TreeMap<>();
        for (String series : scrape.series().keySet()) {
            int brace = series.indexOf('{');
            Map<String, Set<String>> ofName = labels.computeIfAbsent(brace < 0 ? series : series.substring(0, brace), n -> new TreeMap<>());
            if (brace >= 0) {
                Matcher m = label.matcher(series.substring(brace));
                while (m.find()) {
                    ofName.computeIfAbsent(m.group(1), l -> new TreeSet<>()).add(m.group(2));
                }
            }
        }
        return labels;
    }

    /** Sample name -> the type of its family from the {@code # TYPE} lines (a histogram's {@code _bucket}, {@code _count}, {@code _sum} too). */
    private static Map<String, String> sampleTypes(String body) {
        Map<String, String> types = new HashMap<>();
        for (String line : body.split("\n")) {
            if (line.startsWith("# TYPE ")) {
                String[] parts = line.split(" ");
                types.put(parts[2], parts[3]);
                if (parts[3].equals("histogram") || parts[3].equals("summary")) {
                    for (String suffix : List.of("_bucket", "_count", "_sum")) {
                        types.put(parts[2] + suffix, parts[3]);
                    }
                }
                if (parts[3].equals("counter") && !parts[2].endsWith("_total")) {
                    types.put(parts[2] + "_total", "counter");
                }
            }
        }
        return types;
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
    void theHealthPanelsShowEachInstanceSoOneInstancesOutageIsNotHiddenByAnothersUp() throws IOException {
        JsonNode dashboard = new ObjectMapper().readTree(observability.resolve("grafana-dashboard.json").toFile());
        int checked = 0;
        for (JsonNode panel : dashboard.findParents("targets")) {
            for (JsonNode target : panel.path("targets")) {
                String expr = target.path("expr").asText();
                if (!expr.contains("ratelimit_store_health{")) {
                    continue;
                }
                Matcher by = BY.matcher(expr);
                assertThat(by.find()).as(expr).isTrue();
                assertThat(by.group(1).split("\\s*,\\s*")).as(expr).contains("instance", "state");
                assertThat(target.path("legendFormat").asText()).as(expr).contains("{{instance}}", "{{state}}");
                for (JsonNode override : panel.path("fieldConfig").path("overrides")) {
                    JsonNode matcher = override.path("matcher");
                    String state = matcher.path("options").asText().replace(".* ", "");
                    // A series is named "<instance> <state>": a colour given by the bare state's name would never apply.
                    assertThat(matcher.path("id").asText()).as(panel.path("title").asText()).isEqualTo("byRegexp");
                    assertThat(("localhost:8080 " + state).matches(matcher.path("options").asText())).as(state).isTrue();
                }
                checked++;
            }
        }
        assertThat(checked).as("the health stat and the health timeline").isEqualTo(2);
    }

    @Test
    void prometheusScrapesTheAppsMetricsPath() throws IOException {
        String config = Files.readString(observability.resolve("prometheus.yml"));

        assertThat(config).contains("metrics_path: /metrics", "- targets: ['localhost:8080']");
        assertThat(Duration.ofSeconds(Long.parseLong(config.replaceAll("(?s).*scrape_interval: (\\d+)s.*", "$1"))))
                .as("scrape interval").isLessThanOrEqualTo(Duration.ofSeconds(15));
    }
}
