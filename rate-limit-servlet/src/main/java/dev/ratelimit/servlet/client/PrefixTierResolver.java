package dev.ratelimit.servlet.client;

import dev.ratelimit.InvalidConfigurationException;

import java.util.Comparator;
import java.util.Map;

/** {@link TierResolver#byKeyPrefix}: prefixes tried longest first. */
final class PrefixTierResolver implements TierResolver {
    private static final String API_KEY = "apikey:";

    private final String[] prefixes;
    private final String[] tiers;
    private final String defaultTier;

    PrefixTierResolver(Map<String, String> byPrefix, String defaultTier) {
        // Not containsKey(null): Map.of's throws NullPointerException for it.
        if (byPrefix == null || byPrefix.entrySet().stream().anyMatch(e -> e.getKey() == null || e.getValue() == null)) {
            throw new InvalidConfigurationException("tierPrefixes", "must map prefixes to tiers (empty for none), was " + byPrefix);
        }
        if (defaultTier == null) {
            throw new InvalidConfigurationException("defaultTier", "must name a tier, was null");
        }
        var sorted = byPrefix.entrySet().stream()
                .sorted(Comparator.comparingInt((Map.Entry<String, String> e) -> e.getKey().length()).reversed()
                        .thenComparing(Map.Entry::getKey))
                .toList();
        this.prefixes = sorted.stream().map(e -> API_KEY + e.getKey()).toArray(String[]::new);
        this.tiers = sorted.stream().map(Map.Entry::getValue).toArray(String[]::new);
        this.defaultTier = defaultTier;
    }

    @Override
    public String tier(String clientId) {
        for (int i = 0; i < prefixes.length; i++) {
            if (clientId.startsWith(prefixes[i])) {
                return tiers[i];
            }
        }
        return defaultTier;
    }

    @Override
    public String toString() {
        return "byKeyPrefix" + java.util.Arrays.toString(prefixes) + " -> " + java.util.Arrays.toString(tiers) + ", default " + defaultTier;
    }
}
