package dev.ratelimit.example.observe;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * One {@code /metrics} answer read as Prometheus reads it: each sample line {@code name{labels} value}
 * keyed by its series exactly as printed (labels in the writer's alphabetical order).
 */
record Scrape(Map<String, Double> series) {

    static Scrape parse(String text) {
        Map<String, Double> series = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            String value = line.substring(space + 1);
            series.put(line.substring(0, space), value.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(value));
        }
        return new Scrape(series);
    }

    /** The value of one series, e.g. {@code ratelimit_tracked_keys}; fails naming it when it is absent. */
    double value(String seriesKey) {
        Double v = series.get(seriesKey);
        if (v == null) {
            throw new AssertionError("no series " + seriesKey + " in /metrics; it has " + names());
        }
        return v;
    }

    /** {@code ratelimit_decisions_total{algorithm,endpoint,outcome,tier}}. */
    double decisions(String tier, String endpoint, String algorithm, String outcome) {
        return value("ratelimit_decisions_total{algorithm=\"" + algorithm + "\",endpoint=\"" + endpoint + "\",outcome=\""
                + outcome + "\",tier=\"" + tier + "\"}");
    }

    /** The sample names, e.g. {@code ratelimit_decision_seconds_bucket}. */
    Set<String> names() {
        Set<String> names = new TreeSet<>();
        for (String key : series.keySet()) {
            int brace = key.indexOf('{');
            names.add(brace < 0 ? key : key.substring(0, brace));
        }
        return names;
    }
}
