package dev.ratelimit.example.server;

import dev.ratelimit.Limit;
import dev.ratelimit.config.EndpointRule;
import dev.ratelimit.config.RateLimitConfig;
import dev.ratelimit.example.limits.PolicyText;

import java.net.URI;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The start-up log: where the app listens, the store in use, every tier's limits as a table, and whose
 * {@code X-Forwarded-For} is believed.
 * <pre>
 * rate-limit example listening on http://localhost:8080
 *   store:  in memory (this instance only; set REDIS_URL to share limits between instances)
 *   config: bundled free/pro/enterprise tiers
 *   tier        endpoint  route              limit
 *   free        scan      GET /api/scan      token bucket 10, +1/1s
 *   ...
 *   watch: http://localhost:8080/dashboard (live charts), http://localhost:8080/metrics (Prometheus)
 * </pre>
 */
final class StartupBanner {
    private StartupBanner() {
    }

    static String render(URI uri, String store, RateLimitConfig config, String configSource, List<String> trustedProxies) {
        StringBuilder s = new StringBuilder("rate-limit example listening on ").append(uri).append('\n');
        s.append("  store:  ").append(store).append('\n');
        s.append("  config: ").append(configSource).append('\n');
        if (config.shadow()) {
            s.append("  shadow mode: limits are counted and shown in headers but never enforced (no 429)\n");
        }
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"tier", "endpoint", "route", "limit"});
        for (var tier : config.tiers().entrySet()) {
            for (EndpointRule rule : config.endpoints()) {
                Limit limit = tier.getValue().get(rule.name());
                String route = rule.method() + " " + rule.path() + (rule.cost() > 1 ? " (cost " + rule.cost() + ")" : "")
                        + (rule.shadow() && !config.shadow() ? " (shadow: not enforced)" : "");
                rows.add(new String[] {tier.getKey(), rule.name(), route, PolicyText.describe(limit)});
            }
        }
        if (rows.size() == 1) {
            rows.clear();
            s.append("  no endpoint rules\n");
        }
        int[] widths = new int[4];
        for (String[] row : rows) {
            for (int i = 0; i < 3; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        for (String[] row : rows) {
            s.append(String.format("  %-" + widths[0] + "s  %-" + widths[1] + "s  %-" + widths[2] + "s  %s%n", (Object[]) row));
        }
        s.append("  unmatched /api paths: ").append(config.unmatched().map(PolicyText::describe).orElse("unlimited"));
        if (!config.allowlist().paths().isEmpty()) {
            s.append("; never limited: ").append(String.join(", ", config.allowlist().paths()));
        }
        s.append('\n');
        if (config.tierPrefixes().isEmpty()) {
            s.append("  every client (any X-API-Key, or none) is in tier ").append(config.defaultTier()).append('\n');
        } else {
            s.append("  tiers by API key prefix (X-API-Key): ").append(prefixes(config))
                    .append("; other keys and no key: ").append(config.defaultTier()).append('\n');
        }
        s.append("  client addresses: ").append(trustedProxies.isEmpty()
                ? "the connection's peer (X-Forwarded-For ignored; behind a proxy, set RATE_LIMIT_TRUSTED_PROXIES)"
                : "from X-Forwarded-For when the peer is a trusted proxy (" + String.join(", ", trustedProxies) + "), else the peer")
                .append('\n');
        tryLine(uri, config).ifPresent(line -> s.append("  try: ").append(line).append('\n'));
        s.append("  watch: ").append(uri).append("/dashboard (live charts), ").append(uri).append("/metrics (Prometheus)");
        return s.toString();
    }

    /** {@code sk-free-* free, sk-pro-* pro, ...} in the configuration's tier order. */
    private static String prefixes(RateLimitConfig config) {
        return sortedPrefixes(config).map(e -> e.getKey() + "* " + e.getValue()).collect(Collectors.joining(", "));
    }

    private static Stream<Map.Entry<String, String>> sortedPrefixes(RateLimitConfig config) {
        List<String> order = List.copyOf(config.tiers().keySet());
        return config.tierPrefixes().entrySet().stream()
                .sorted(Comparator.comparing((Map.Entry<String, String> e) -> order.indexOf(e.getValue())).thenComparing(Map.Entry::getKey));
    }

    /**
     * A request to try: the first rule with a plain path, with a key of the first tier's prefix
     * ({@code sk-free-demo}); none when every rule's path is a pattern.
     */
    private static Optional<String> tryLine(URI uri, RateLimitConfig config) {
        return config.endpoints().stream().filter(rule -> !rule.path().contains("*")).findFirst().map(rule -> "curl -i"
                + ("GET".equals(rule.method()) || "*".equals(rule.method()) ? "" : " -X " + rule.method())
                + sortedPrefixes(config).findFirst().map(e -> " -H 'X-API-Key: " + e.getKey() + "demo'").orElse("")
                + " " + uri + rule.path());
    }
}
