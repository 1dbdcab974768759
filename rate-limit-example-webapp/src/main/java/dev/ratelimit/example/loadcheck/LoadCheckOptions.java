package dev.ratelimit.example.loadcheck;

import dev.ratelimit.InvalidConfigurationException;
import dev.ratelimit.Limit;
import dev.ratelimit.config.EndpointRule;
import dev.ratelimit.config.RateLimitConfig;
import dev.ratelimit.example.cli.Flags;
import dev.ratelimit.example.cli.UsageException;

import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The load check's command line, checked: the instances, how many clients for how long, which tiers
 * and endpoints (of the same configuration the servers run), and the clock-skew allowance.
 *
 * @param targets one per virtual client, spread round-robin over the tier x endpoint combinations
 */
record LoadCheckOptions(List<URI> urls, List<Target> targets, Duration duration, Duration progress, Duration skew,
                        Duration timeout, RateLimitConfig config, String runId, boolean help) {
    static final Set<String> FLAGS = new LinkedHashSet<>(List.of("url", "clients", "duration", "tiers", "endpoints",
            "config", "progress", "skew", "timeout", "run-id"));

    static LoadCheckOptions parse(String[] args) throws UsageException {
        Flags flags = Flags.parse(args, FLAGS);
        if (flags.help()) {
            return new LoadCheckOptions(List.of(), List.of(), Duration.ZERO, Duration.ZERO, Duration.ZERO, Duration.ZERO, null, "", true);
        }
        List<URI> urls = new ArrayList<>();
        for (String u : flags.text("url", "http://localhost:8080").split(",")) {
            URI uri;
            try {
                uri = new URI(u.trim());
            } catch (java.net.URISyntaxException e) {
                throw flags.invalid("url", "\"" + Flags.hidingUserInfo(u.trim()) + "\" is not a URL");
            }
            if (uri.getScheme() == null || !uri.getScheme().matches("https?") || uri.getHost() == null) {
                throw flags.invalid("url", "\"" + Flags.hidingUserInfo(u.trim()) + "\" must be an http:// or https:// URL with a host");
            }
            if (uri.getRawUserInfo() != null) {
                // The load check sends no credentials from a URL, and its first output line would print them.
                throw flags.invalid("url", "\"" + Flags.hidingUserInfo(u.trim()) + "\" must not hold user:password@");
            }
            urls.add(uri);
        }
        RateLimitConfig config = RateLimitConfig.defaults();
        String configFile = flags.text("config", null);
        if (configFile != null) {
            try {
                config = RateLimitConfig.fromJson(Path.of(configFile));
            } catch (InvalidConfigurationException | UncheckedIOException | InvalidPathException e) {
                throw flags.invalid("config", String.valueOf(e.getMessage()));
            }
        }
        List<String> tiers = selection(flags, "tiers", config.tiers().keySet());
        Set<String> endpointNames = new LinkedHashSet<>();
        config.endpoints().forEach(rule -> endpointNames.add(rule.name()));
        endpointNames.addAll(config.tiers().get(config.defaultTier()).keySet());
        if (endpointNames.isEmpty()) {
            throw new UsageException("--endpoints: the configuration has no endpoint rule (it limits only unmatched requests), "
                    + "so no request has a bound to check");
        }
        List<String> endpoints = selection(flags, "endpoints", endpointNames);
        String runId = flags.text("run-id", Long.toHexString(ThreadLocalRandom.current().nextLong(0x100000, 0xffffff)));
        if (!runId.matches("[A-Za-z0-9-]{1,32}")) {
            throw flags.invalid("run-id", "must be 1-32 letters, digits or dashes");
        }
        int combos = tiers.size() * endpoints.size();
        int clients = flags.number("clients", 2 * combos, 1, 10_000);
        List<Target> targets = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            String tier = tiers.get(i % combos / endpoints.size());
            String endpoint = endpoints.get(i % endpoints.size());
            targets.add(target(config, tier, endpoint, keyPrefix(config, tier) + "lc-" + runId + "-" + (i + 1)));
        }
        return new LoadCheckOptions(List.copyOf(urls), List.copyOf(targets),
                flags.duration("duration", Duration.ofSeconds(10), Duration.ofMillis(100)),
                flags.duration("progress", Duration.ofSeconds(5), Duration.ZERO),
                flags.duration("skew", Duration.ofSeconds(1), Duration.ZERO),
                flags.duration("timeout", Duration.ofSeconds(10), Duration.ofMillis(1)),
                config, runId, false);
    }

    private static List<String> selection(Flags flags, String name, Set<String> known) throws UsageException {
        String value = flags.text(name, null);
        if (value == null) {
            return List.copyOf(known);
        }
        List<String> chosen = Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty()).distinct().toList();
        for (String c : chosen) {
            if (!known.contains(c)) {
                throw flags.invalid(name, "\"" + c + "\" is not in the configuration " + known);
            }
        }
        if (chosen.isEmpty()) {
            throw flags.invalid(name, "must name at least one of " + known);
        }
        return chosen;
    }

    /** A key prefix that puts a client in {@code tier}: one of its prefixes, or none for the default tier. */
    private static String keyPrefix(RateLimitConfig config, String tier) throws UsageException {
        for (Map.Entry<String, String> e : config.tierPrefixes().entrySet()) {
            if (e.getValue().equals(tier)) {
                return e.getKey();
            }
        }
        if (tier.equals(config.defaultTier())) {
            return "";
        }
        throw new UsageException("--tiers: tier \"" + tier + "\" has no API key prefix in the configuration, so no client can reach it");
    }

    /** The tier the servers give {@code key}: the longest matching prefix's, else the default. */
    static String tierOf(RateLimitConfig config, String key) {
        String best = null;
        for (String prefix : config.tierPrefixes().keySet()) {
            if (key.startsWith(prefix) && (best == null || prefix.length() > best.length())) {
                best = prefix;
            }
        }
        return best == null ? config.defaultTier() : config.tierPrefixes().get(best);
    }

    /** The first rule naming {@code endpoint}, turned into a request. */
    private static Target target(RateLimitConfig config, String tier, String endpoint, String key) throws UsageException {
        if (!tierOf(config, key).equals(tier)) {
            throw new UsageException("--tiers: no key reaches tier \"" + tier + "\" (\"" + key + "\" is in tier \"" + tierOf(config, key) + "\")");
        }
        EndpointRule rule = config.endpoints().stream().filter(r -> r.name().equals(endpoint)).findFirst().orElse(null);
        if (rule == null) {
            throw new UsageException("--endpoints: endpoint \"" + endpoint + "\" has no request rule in the configuration, so no request reaches it");
        }
        String path = rule.path().endsWith("/**") ? rule.path().substring(0, rule.path().length() - 3)
                : rule.path().endsWith("/*") ? rule.path().substring(0, rule.path().length() - 1) + "loadcheck" : rule.path();
        String requestPath = path.isEmpty() ? "/" : path;
        String method = rule.method().equals("*") ? "GET" : rule.method();
        String body = method.equals("POST") || method.equals("PUT") ? "{\"user\":\"loadcheck\"}" : null;
        // The servers apply the first rule that matches (its limit and cost): it must be this one.
        EndpointRule first = config.endpoints().stream().filter(r -> r.matches(method, requestPath)).findFirst().orElse(null);
        if (first != rule) {
            throw new UsageException("--endpoints: the load check's request for \"" + endpoint + "\" (" + method + " " + requestPath
                    + ") is decided by " + (first == null ? "no rule" : "the earlier rule \"" + first.name() + "\" (" + first.method()
                    + " " + first.path() + ")") + ", so its bound would not be the servers'");
        }
        // Requests the servers let through whatever the count have no bound: a check would call them OVER.
        String unlimited = config.shadow() ? "the configuration is in shadow mode" : rule.shadow() ? "its rule is in shadow mode"
                : config.allowlist().paths().stream().filter(p -> EndpointRule.of("*", p, "allowlist").matches(method, requestPath))
                        .findFirst().map(p -> "the allowlist path \"" + p + "\" matches it").orElse(null);
        if (unlimited != null) {
            throw new UsageException("--endpoints: the servers never refuse the load check's request for \"" + endpoint + "\" ("
                    + method + " " + requestPath + "): " + unlimited + ", so it has no bound to check");
        }
        Limit limit = config.limit(tier, endpoint).orElseThrow();
        return new Target(tier, endpoint, method, requestPath, body, limit, rule.cost(), key);
    }
}
