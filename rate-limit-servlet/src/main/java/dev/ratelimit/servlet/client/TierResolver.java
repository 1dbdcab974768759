package dev.ratelimit.servlet.client;

import java.util.Map;

/**
 * Says which tier a client belongs to (e.g. {@code free}, {@code pro}, {@code enterprise}), from its
 * client id. The filter's one seam for tiers; implementations must be thread-safe and fast. Null, or
 * a tier the configuration does not define, is treated as the configuration's default tier (with a
 * warning, at most once a minute). Whatever it throws, {@link InvalidClientException} included, is a
 * failure of the filter, not the client's: the request is counted against no one and passed on or
 * refused with a {@code 503} as the failure mode says.
 *
 * <pre>{@code
 * // A lookup table of keys, falling back to the prefixes:
 * TierResolver byPrefix = TierResolver.byKeyPrefix(Map.of("sk-pro-", "pro", "sk-ent-", "enterprise"), "free");
 * Map<String, String> plans = Map.of("apikey:acme-4f2a", "enterprise");
 * TierResolver byPlan = clientId -> plans.getOrDefault(clientId, byPrefix.tier(clientId));
 * }</pre>
 */
@FunctionalInterface
public interface TierResolver {

    /**
     * The tier of {@code clientId}.
     *
     * @param clientId the client id as {@link ClientIdResolver#resolve} returned it, never null or empty
     * @return the tier's name (null, or a tier not defined, is read as the default tier, with a warning)
     */
    String tier(String clientId);

    /**
     * The default: for {@code apikey:<key>} client ids, the tier of the longest prefix in
     * {@code prefixes} that {@code <key>} starts with; for any other key, or no key,
     * {@code defaultTier}.
     *
     * @param prefixes    API-key prefix to tier
     * @param defaultTier the tier of every other client
     * @return the resolver
     * @throws dev.ratelimit.InvalidConfigurationException for a null map, prefix, tier or default tier
     */
    static TierResolver byKeyPrefix(Map<String, String> prefixes, String defaultTier) {
        return new PrefixTierResolver(prefixes, defaultTier);
    }
}
