package dev.ratelimit.config;

import dev.ratelimit.InvalidConfigurationException;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What to limit: tiers (free, pro, enterprise...) times named endpoints, each mapped to a
 * {@link Limit}; the tier of clients whose key names none; how keys map to tiers (by prefix);
 * which requests are which endpoint; what happens to requests that match no endpoint; and what is
 * never limited. Immutable and validated: every tier defines the same endpoints.
 *
 * <p>Load it from JSON ({@link #fromJson(Path)}, {@link #fromClasspath(String)}; the format is in the
 * README), take the bundled seed table ({@link #defaults()}), or build it in code:
 * <pre>{@code
 * RateLimitConfig config = RateLimitConfig.builder()
 *         .endpoint(EndpointRule.of("GET", "/api/scan", "scan"))
 *         .limit("free", "scan", TokenBucket.perSecond(10, 1))
 *         .limit("pro", "scan", TokenBucket.perSecond(100, 10))
 *         .tierPrefix("sk-pro-", "pro")
 *         .build();
 * }</pre>
 *
 * @param defaultTier  the tier of clients without a recognized key
 * @param tiers        tier name to endpoint name to limit (limits are named after their endpoint)
 * @param tierPrefixes API-key prefix to tier, tried longest first
 * @param endpoints    request matching rules, tried in order
 * @param unmatched    the limit for requests matching no rule, or empty for unlimited
 * @param allowlist    requests that are never limited
 * @param shadow       when true, no rejection is enforced anywhere (decide, report, let through)
 */
public record RateLimitConfig(String defaultTier, Map<String, Map<String, Limit>> tiers,
                              Map<String, String> tierPrefixes, List<EndpointRule> endpoints,
                              Optional<Limit> unmatched, Allowlist allowlist, boolean shadow) {
    /** The name of the limit applied to requests that match no endpoint rule. */
    public static final String UNMATCHED_NAME = "default";
    /** Where the bundled default configuration lives on the classpath. */
    public static final String DEFAULTS_RESOURCE = "dev/ratelimit/config/default-rate-limits.json";

    /**
     * Validates cross-field rules and copies every collection; a null {@code unmatched} is read as
     * empty, a null {@code allowlist} as {@link Allowlist#NONE}.
     *
     * @param defaultTier  the tier of clients without a recognized key
     * @param tiers        tier name to endpoint name to limit
     * @param tierPrefixes API-key prefix to tier
     * @param endpoints    request matching rules
     * @param unmatched    the limit for requests matching no rule, or empty
     * @param allowlist    requests that are never limited
     * @param shadow       whether no rejection is enforced
     * @throws InvalidConfigurationException naming the first invalid field
     */
    public RateLimitConfig {
        if (tiers == null || tiers.isEmpty()) {
            throw new InvalidConfigurationException("tiers", "must define at least one tier");
        }
        Map<String, Map<String, Limit>> copy = new LinkedHashMap<>();
        tiers.forEach((tier, limits) -> {
            if (tier == null || !EndpointRule.NAME.matcher(tier).matches()) {
                throw new InvalidConfigurationException("tiers", "tier names must be 1-64 characters of [A-Za-z0-9._-], was \"" + tier + "\"");
            }
            if (limits == null) {
                throw new InvalidConfigurationException("tiers." + tier, "must map endpoints to limits, was null");
            }
            // The filter and the stores look limits up by name: one named otherwise than its endpoint
            // would leave that endpoint without a limiter, failing every request to it.
            limits.forEach((endpoint, limit) -> {
                if (limit == null || !limit.name().equals(endpoint)) {
                    throw new InvalidConfigurationException("tiers." + tier + "." + endpoint, "must be a limit named after its "
                            + "endpoint, \"" + endpoint + "\", was " + (limit == null ? "null" : "named \"" + limit.name() + "\""));
                }
            });
            copy.put(tier, Collections.unmodifiableMap(new LinkedHashMap<>(limits))); // in the order given
        });
        // After the tiers' own checks: a tier whose name is invalid is that name's error, not the default tier's.
        if (defaultTier == null || !copy.containsKey(defaultTier)) {
            throw new InvalidConfigurationException("defaultTier", "must name a defined tier " + copy.keySet() + ", was "
                    + (defaultTier == null ? "null" : "\"" + defaultTier + "\""));
        }
        tiers = Collections.unmodifiableMap(copy);
        var expected = tiers.get(defaultTier).keySet();
        for (var entry : tiers.entrySet()) {
            for (String endpoint : expected) {
                if (!entry.getValue().containsKey(endpoint)) {
                    throw new InvalidConfigurationException("tiers." + entry.getKey(), "must define endpoint \"" + endpoint
                            + "\" (tier \"" + defaultTier + "\" does), has " + entry.getValue().keySet());
                }
            }
            for (String endpoint : entry.getValue().keySet()) {
                if (!expected.contains(endpoint)) {
                    throw new InvalidConfigurationException("tiers." + entry.getKey() + "." + endpoint,
                            "is not defined by the default tier \"" + defaultTier + "\" " + expected);
                }
            }
        }
        if (tierPrefixes == null) {
            throw new InvalidConfigurationException("tierPrefixes", "must be a map (empty for none), was null");
        }
        tierPrefixes.forEach((prefix, tier) -> {
            if (prefix == null || tier == null) {
                throw new InvalidConfigurationException("tierPrefixes", "must map prefixes to tiers, had " + prefix + " -> " + tier);
            }
        });
        tierPrefixes = Collections.unmodifiableMap(new LinkedHashMap<>(tierPrefixes));
        for (var prefix : tierPrefixes.entrySet()) {
            // API keys are visible ASCII (the filter refuses others): a prefix with a space would match none.
            if (!prefix.getKey().chars().allMatch(c -> c >= '!' && c <= '~')) {
                String shown = prefix.getKey().replaceAll("[^\\x20-\\x7e]", "?");
                throw new InvalidConfigurationException("tierPrefixes." + shown, "must be visible ASCII (! to ~) like the API keys "
                        + "it matches, was \"" + shown + "\"");
            }
            if (!tiers.containsKey(prefix.getValue())) {
                throw new InvalidConfigurationException("tierPrefixes." + prefix.getKey(), "must name a defined tier "
                        + tiers.keySet() + ", was \"" + prefix.getValue() + "\"");
            }
        }
        if (endpoints == null) {
            throw new InvalidConfigurationException("endpoints", "must be a list (empty for none), was null");
        }
        for (int i = 0; i < endpoints.size(); i++) {
            if (endpoints.get(i) == null) {
                throw new InvalidConfigurationException("endpoints[" + i + "]", "must be a rule, was null");
            }
        }
        endpoints = List.copyOf(endpoints);
        for (int i = 0; i < endpoints.size(); i++) {
            EndpointRule rule = endpoints.get(i);
            if (!expected.contains(rule.name())) {
                throw new InvalidConfigurationException("endpoints[" + i + "].name", "must name an endpoint the tiers define "
                        + expected + ", was \"" + rule.name() + "\"");
            }
            for (var tier : tiers.entrySet()) {
                long limitOfEndpoint = tier.getValue().get(rule.name()).policies().stream().mapToLong(Policy::limit).min().orElseThrow();
                if (rule.cost() > limitOfEndpoint) {
                    throw new InvalidConfigurationException("endpoints[" + i + "].cost", "must not exceed the smallest limit of \""
                            + rule.name() + "\" in tier \"" + tier.getKey() + "\" (" + limitOfEndpoint + "), or no request could ever pass; was " + rule.cost());
                }
            }
        }
        if (unmatched == null) {
            unmatched = Optional.empty();
        }
        if (unmatched.isPresent() && !unmatched.get().name().equals(UNMATCHED_NAME)) {
            // Named after an endpoint, it would share that endpoint's quota (limits of one name share state).
            throw new InvalidConfigurationException("unmatched", "must be a limit named \"" + UNMATCHED_NAME + "\", was named \""
                    + unmatched.get().name() + "\"");
        }
        if (unmatched.isPresent() && expected.contains(UNMATCHED_NAME)) {
            // Limits of one name share state: such an endpoint could share the unmatched requests' quota.
            throw new InvalidConfigurationException("tiers." + defaultTier + "." + UNMATCHED_NAME, "\"" + UNMATCHED_NAME
                    + "\" is the name of the unmatched requests' limit; name the endpoint otherwise");
        }
        if (allowlist == null) {
            allowlist = Allowlist.NONE;
        }
    }

    /**
     * The limit for {@code endpoint} in {@code tier}, if that tier and endpoint exist. A lookup, like
     * {@code Map.get}: a null tier or endpoint has no limit (empty), an exception to the package's
     * rule that null arguments throw {@code NullPointerException}.
     *
     * @param tier     the tier's name
     * @param endpoint the endpoint's name
     * @return the limit, or empty
     */
    public Optional<Limit> limit(String tier, String endpoint) {
        if (tier == null || endpoint == null) {
            return Optional.empty();
        }
        Map<String, Limit> limits = tiers.get(tier);
        return limits == null ? Optional.empty() : Optional.ofNullable(limits.get(endpoint));
    }

    /**
     * The bundled configuration: the seed's free/pro/enterprise table for scan, reports and login.
     *
     * @return the configuration read from {@link #DEFAULTS_RESOURCE}
     * @throws IllegalStateException without jackson-databind on the class path (the defaults are read from JSON)
     */
    public static RateLimitConfig defaults() {
        try {
            return ConfigJson.readResource(DEFAULTS_RESOURCE, false);
        } catch (NoClassDefFoundError e) {
            throw jacksonMissing(e);
        }
    }

    /**
     * Loads JSON from a file.
     *
     * @param file the JSON file
     * @return the configuration
     * @throws InvalidConfigurationException naming the JSON path and the bad value (not the file: the
     *                                       caller knows it), or the file and what is wrong with it as JSON (with
     *                                       the line and column where it is malformed)
     * @throws java.io.UncheckedIOException  when the file cannot be read, saying why (no such file, permission denied)
     * @throws IllegalStateException         without jackson-databind on the class path (an optional dependency)
     */
    public static RateLimitConfig fromJson(Path file) {
        try {
            return ConfigJson.read(file);
        } catch (NoClassDefFoundError e) {
            throw jacksonMissing(e);
        }
    }

    /**
     * Loads JSON from a stream (not closed); {@code source} names it in the errors of malformed JSON
     * (a bad value is named by its JSON path, as from a file).
     *
     * @param json   the JSON
     * @param source what to call the stream in errors, e.g. a file name
     * @return the configuration
     * @throws IOException                   when reading the stream fails
     * @throws InvalidConfigurationException naming the JSON path and the bad value, or {@code source}
     *                                       and what is wrong with it as JSON (with the line and column where it is malformed)
     * @throws IllegalStateException         without jackson-databind on the class path (an optional dependency)
     */
    public static RateLimitConfig fromJson(InputStream json, String source) throws IOException {
        try {
            return ConfigJson.read(json, source);
        } catch (NoClassDefFoundError e) {
            throw jacksonMissing(e);
        }
    }

    /**
     * Loads JSON from a classpath resource, looked up with the thread's context class loader (in a
     * servlet container, the web application's, as the filter's {@code config=classpath:...} init-param
     * reads it), then with this library's class loader. A leading {@code /} (as {@code Class.getResource}
     * takes it) is dropped: class loaders name resources without one.
     *
     * @param resource the resource's name, e.g. {@code rate-limits.json}
     * @return the configuration
     * @throws InvalidConfigurationException naming {@code config} when the resource is not found, else the
     *                                       JSON path and the bad value
     * @throws java.io.UncheckedIOException  when the resource cannot be read
     * @throws IllegalStateException         without jackson-databind on the class path (an optional dependency)
     */
    public static RateLimitConfig fromClasspath(String resource) {
        try {
            return ConfigJson.readResource(resource.startsWith("/") ? resource.substring(1) : resource, true);
        } catch (NoClassDefFoundError e) {
            throw jacksonMissing(e);
        }
    }

    /** JSON is read with Jackson, an optional dependency of the core: without it, say so rather than NoClassDefFoundError. */
    private static IllegalStateException jacksonMissing(NoClassDefFoundError e) {
        return new IllegalStateException("reading a JSON configuration needs com.fasterxml.jackson.core:jackson-databind "
                + "on the class path (an optional dependency of rate-limit-core; missing " + e.getMessage()
                + "); add it, or build the configuration in code with RateLimitConfig.builder()", e);
    }

    /**
     * A builder for configuration in code.
     *
     * @return a new builder, with default tier {@code free} and nothing else
     */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds a {@link RateLimitConfig}; {@link #build()} runs the validation. */
    public static final class Builder {
        private String defaultTier = "free";
        private final Map<String, Map<String, List<Policy>>> tiers = new LinkedHashMap<>();
        private final Map<String, String> tierPrefixes = new LinkedHashMap<>();
        private final List<EndpointRule> endpoints = new ArrayList<>();
        private Limit unmatched;
        private Allowlist allowlist = Allowlist.NONE;
        private boolean shadow;

        private Builder() {
        }

        /**
         * The tier of clients without a recognized key (default {@code free}).
         *
         * @param tier the tier's name
         * @return this builder
         * @throws InvalidConfigurationException if {@code tier} is null
         */
        public Builder defaultTier(String tier) {
            this.defaultTier = required("defaultTier", "a tier name", tier);
            return this;
        }

        /**
         * Declares {@code tier} without adding a limit to it. Every tier must define the default tier's
         * endpoints, so a tier with no endpoint limits builds only when no tier has any: its clients
         * then get only the {@link #unmatched} limit (one limit per client for every request).
         * Tiers that {@link #limit} names are declared by it.
         *
         * @param tier the tier's name
         * @return this builder
         * @throws InvalidConfigurationException if {@code tier} is null
         */
        public Builder tier(String tier) {
            tiers.computeIfAbsent(required("tiers", "a tier name", tier), t -> new LinkedHashMap<>());
            return this;
        }

        /**
         * Adds policies to {@code endpoint} in {@code tier}; several, in one call or several, make a
         * composite limit, validated by {@link #build()}.
         *
         * @param tier     the tier's name
         * @param endpoint the endpoint's name
         * @param policies the policies to add
         * @return this builder
         * @throws InvalidConfigurationException if {@code tier} or {@code endpoint} is null
         */
        public Builder limit(String tier, String endpoint, Policy... policies) {
            tiers.computeIfAbsent(required("tiers", "a tier name", tier), t -> new LinkedHashMap<>())
                    .computeIfAbsent(required("tiers." + tier, "an endpoint name", endpoint), e -> new ArrayList<>())
                    .addAll(policies == null ? Arrays.asList((Policy) null) : Arrays.asList(policies));
            return this;
        }

        /**
         * Keys starting with {@code prefix} belong to {@code tier}.
         *
         * @param prefix the API-key prefix
         * @param tier   the tier's name
         * @return this builder
         * @throws InvalidConfigurationException if either is null, or the prefix already belongs to another tier
         */
        public Builder tierPrefix(String prefix, String tier) {
            String earlier = tierPrefixes.putIfAbsent(required("tierPrefixes", "a prefix", prefix),
                    required("tierPrefixes." + prefix, "a tier name", tier));
            if (earlier != null && !earlier.equals(tier)) {
                // As in JSON, where a prefix named twice is refused: the later one must not win silently.
                throw new InvalidConfigurationException("tierPrefixes." + prefix, "already belongs to tier \"" + earlier
                        + "\"; a prefix names one tier, was \"" + tier + "\" too");
            }
            return this;
        }

        /**
         * Adds a request matching rule (tried in the order added).
         *
         * @param rule the rule
         * @return this builder
         * @throws InvalidConfigurationException if {@code rule} is null
         */
        public Builder endpoint(EndpointRule rule) {
            endpoints.add(required("endpoints[" + endpoints.size() + "]", "a rule", rule));
            return this;
        }

        /**
         * The limit for requests that match no rule (default: unlimited), named {@value #UNMATCHED_NAME};
         * a later call replaces it.
         *
         * @param policies its policies
         * @return this builder
         * @throws InvalidConfigurationException as {@link Limit#of}, located under {@code unmatched}
         */
        public Builder unmatched(Policy... policies) {
            try {
                this.unmatched = Limit.of(UNMATCHED_NAME, policies);
            } catch (InvalidConfigurationException e) {
                throw e.under("unmatched");
            }
            return this;
        }

        /**
         * Requests never limited (default {@link Allowlist#NONE}).
         *
         * @param allowlist the allowlist
         * @return this builder
         * @throws InvalidConfigurationException if {@code allowlist} is null
         */
        public Builder allowlist(Allowlist allowlist) {
            this.allowlist = required("allowlist", "an allowlist (Allowlist.NONE for none)", allowlist);
            return this;
        }

        /**
         * Report rejections without enforcing any.
         *
         * @param shadow true for shadow mode (default false)
         * @return this builder
         */
        public Builder shadow(boolean shadow) {
            this.shadow = shadow;
            return this;
        }

        /** {@code value}, or an error naming {@code field} (a Map or List would fail later with a bare NullPointerException). */
        private static <T> T required(String field, String what, T value) {
            if (value == null) {
                throw new InvalidConfigurationException(field, "must be " + what + ", was null");
            }
            return value;
        }

        /**
         * The validated configuration.
         *
         * @return the configuration
         * @throws InvalidConfigurationException as the {@link RateLimitConfig} constructor, or for an invalid
         *                                       limit, located under {@code tiers.<tier>.<endpoint>}
         */
        public RateLimitConfig build() {
            Map<String, Map<String, Limit>> limits = new LinkedHashMap<>();
            tiers.forEach((tier, endpointsOfTier) -> {
                Map<String, Limit> byEndpoint = new LinkedHashMap<>();
                endpointsOfTier.forEach((endpoint, policies) -> {
                    try {
                        byEndpoint.put(endpoint, new Limit(endpoint, policies));
                    } catch (InvalidConfigurationException e) {
                        throw e.under("tiers." + tier + "." + endpoint);
                    }
                });
                limits.put(tier, byEndpoint);
            });
            return new RateLimitConfig(defaultTier, limits, tierPrefixes, endpoints, Optional.ofNullable(unmatched), allowlist, shadow);
        }
    }
}
