package dev.ratelimit.bench.report;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One JMH result (one benchmark, one parameter combination, one thread count), as read from
 * JMH's JSON output ({@code -rf json}).
 *
 * @param benchmark the simple name, e.g. {@code InMemoryBenchmark.decide}
 * @param params    the {@code @Param} values
 * @param threads   client threads
 * @param score     the primary score (operations per second)
 * @param error     its 99.9% half-width, or NaN with one measurement
 * @param allocNorm bytes allocated per operation ({@code -prof gc}), or NaN without the profiler
 * @param rejected  rejected operations per second (the benchmarks' aux counter), or NaN
 * @param settings  the run's JMH settings, for the report's header
 */
record JmhResult(String benchmark, Map<String, String> params, int threads, double score, double error,
                 double allocNorm, double rejected, String settings) {

    static JmhResult of(JsonNode node) {
        String full = node.path("benchmark").asText();
        int cut = full.lastIndexOf('.', full.lastIndexOf('.') - 1);
        Map<String, String> params = new LinkedHashMap<>();
        node.path("params").properties().forEach(e -> params.put(e.getKey(), e.getValue().asText()));
        JsonNode primary = node.path("primaryMetric");
        JsonNode secondary = node.path("secondaryMetrics");
        String settings = "forks " + node.path("forks").asInt()
                + ", warm-up " + node.path("warmupIterations").asInt() + " x " + node.path("warmupTime").asText()
                + ", measurement " + node.path("measurementIterations").asInt() + " x " + node.path("measurementTime").asText()
                + ", JVM args " + node.path("jvmArgs").toString().replace("\"", "");
        return new JmhResult(full.substring(cut + 1), params, node.path("threads").asInt(),
                number(primary.path("score")), number(primary.path("scoreError")),
                number(secondary.path("gc.alloc.rate.norm").path("score")),
                number(secondary.path("rejected").path("score")), settings);
    }

    private static double number(JsonNode node) {
        if (node.isNumber()) {
            return node.asDouble();
        }
        try {
            return Double.parseDouble(node.asText());
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    String param(String name) {
        return params.getOrDefault(name, "");
    }

    /** The share of decisions that were rejected (0 when none were, NaN when not counted). */
    double rejectedShare() {
        return score > 0 ? rejected / score : Double.NaN;
    }
}
