package dev.ratelimit.servlet.client;

import dev.ratelimit.InvalidConfigurationException;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PrefixTierResolverTest {
    private final TierResolver tiers = TierResolver.byKeyPrefix(
            Map.of("sk-", "free", "sk-pro-", "pro", "sk-pro-x-", "enterprise"), "free");

    @Test
    void picksTheLongestMatchingPrefix() {
        assertThat(tiers.tier("apikey:sk-pro-x-123")).isEqualTo("enterprise");
        assertThat(tiers.tier("apikey:sk-pro-123")).isEqualTo("pro");
        assertThat(tiers.tier("apikey:sk-123")).isEqualTo("free");
    }

    @Test
    void givesTheDefaultTierToUnknownKeysAndToAddresses() {
        TierResolver proByDefault = TierResolver.byKeyPrefix(Map.of("sk-ent-", "enterprise"), "pro");

        assertThat(proByDefault.tier("apikey:other")).isEqualTo("pro");
        assertThat(proByDefault.tier("ip:sk-ent-1")).isEqualTo("pro");
        assertThat(proByDefault.tier("ip:203.0.113.7")).isEqualTo("pro");
    }

    @Test
    void refusesNullsNamingTheField() {
        Map<String, String> nullTier = new HashMap<>();
        nullTier.put("sk-pro-", null);

        assertThatThrownBy(() -> TierResolver.byKeyPrefix(null, "free")).isInstanceOf(InvalidConfigurationException.class)
                .hasMessageStartingWith("tierPrefixes: ");
        assertThatThrownBy(() -> TierResolver.byKeyPrefix(nullTier, "free")).hasMessageStartingWith("tierPrefixes: ");
        assertThatThrownBy(() -> TierResolver.byKeyPrefix(Map.of(), null)).hasMessage("defaultTier: must name a tier, was null");
    }
}
