package dev.ratelimit.servlet;

import dev.ratelimit.InvalidConfigurationException;
import dev.ratelimit.Limit;
import dev.ratelimit.RateLimitStore;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Policy;
import dev.ratelimit.config.Allowlist;
import dev.ratelimit.config.EndpointRule;
import dev.ratelimit.config.RateLimitConfig;
import dev.ratelimit.store.memory.MemoryStore;
import dev.ratelimit.servlet.client.ForwardedHeader;
import jakarta.servlet.DispatcherType;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The builder's setters answer a bad argument with an error naming the option, never a bare
 * NullPointerException; an option that would do nothing fails the build.
 */
class RateLimitFilterBuilderTest {

    @Test
    void aNullTrustedProxyIsNamedByItsIndex() {
        assertThatThrownBy(() -> RateLimitFilter.builder().trustedProxies("10.0.0.0/8", null))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageStartingWith("trustedProxies[1]: ");
    }

    @Test
    void aNullDispatcherTypeIsNamed() {
        assertThatThrownBy(() -> RateLimitFilter.builder().dispatcherTypes(DispatcherType.REQUEST, DispatcherType.ASYNC, null))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("dispatcherTypes: must not be null");
        assertThatThrownBy(() -> RateLimitFilter.builder().dispatcherTypes(DispatcherType.REQUEST, (DispatcherType[]) null))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("dispatcherTypes: must not be null");
    }

    @Test
    void aForwardingHeaderWithoutTrustedProxiesFailsTheBuildInsteadOfBeingIgnored() {
        assertThatThrownBy(() -> RateLimitFilter.builder().forwardedHeader(ForwardedHeader.FORWARDED).build())
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("forwardedHeader: is read only from trusted proxies, but trustedProxies is empty; was Forwarded");
        assertThatThrownBy(() -> RateLimitFilter.builder().trustedProxies(List.of()).forwardedHeader(ForwardedHeader.X_FORWARDED_FOR).build())
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageStartingWith("forwardedHeader: is read only from trusted proxies");
        RateLimitFilter.builder().forwardedHeader(ForwardedHeader.FORWARDED).trustedProxies("10.0.0.0/8").build().destroy();
    }

    @Test
    void aVerifierConfiguresTheDefaultResolverAndCannotBeCombinedWithYourOwn() {
        assertThatThrownBy(() -> RateLimitFilter.builder().clientIdResolver(request -> "me").apiKeyVerifier(key -> true).build())
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("apiKeyVerifier configure the default resolver");
    }

    @Test
    void theLongestApiKeyMayBeSetFromOneTo8192() {
        RateLimitFilter.builder().maxApiKeyLength(1).build().destroy();
        RateLimitFilter.builder().maxApiKeyLength(8192).build().destroy();
        assertThatThrownBy(() -> RateLimitFilter.builder().maxApiKeyLength(8193).build())
                .isInstanceOf(InvalidConfigurationException.class).hasMessage("maxApiKeyLength: must be 1-8192, was 8193");
        assertThatThrownBy(() -> RateLimitFilter.builder().maxApiKeyLength(0).build())
                .isInstanceOf(InvalidConfigurationException.class).hasMessage("maxApiKeyLength: must be 1-8192, was 0");
    }

    @Test
    void anAllowlistedApiKeyLongerThanTheFilterAcceptsFailsTheBuildWithoutShowingTheKey() {
        String key = "k".repeat(40);
        RateLimitConfig config = RateLimitConfig.builder()
                .endpoint(EndpointRule.of("GET", "/api/scan", "scan"))
                .limit("free", "scan", Policy.tokenBucket(10, 1, Duration.ofSeconds(1)))
                .allowlist(new Allowlist(List.of(), List.of("ip:10.0.0.1", " apikey:" + key + " ")))
                .build();

        assertThatThrownBy(() -> RateLimitFilter.builder().config(config).maxApiKeyLength(39).build())
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("allowlist.clients[1]: can never match: an API key of 40 characters (not shown), longer than "
                        + "maxApiKeyLength 39, whose requests are refused with a 400; raise maxApiKeyLength or correct the key");
        RateLimitFilter.builder().config(config).maxApiKeyLength(40).build().destroy();
        RateLimitFilter.builder().config(config).clientIdResolver(request -> "apikey:" + key).build().destroy();
    }

    /** A store that counts how often it was closed. */
    private static final class ClosingStore implements RateLimitStore {
        private final MemoryStore memory = MemoryStore.builder().build();
        int closed;

        @Override
        public RateLimiter limiter(Limit limit) {
            return memory.limiter(limit);
        }

        @Override
        public void close() {
            closed++;
        }
    }

    @Test
    void aStoreGivenToTheBuilderIsTheCallersToCloseNotTheFilters() {
        ClosingStore store = new ClosingStore();

        RateLimitFilter.builder().store(store).build().destroy();

        assertThat(store.closed).isZero();
    }

    @Test
    void aStoreTheFilterCreatedIsClosedByItsDestroy() {
        // Init-params create the store for the filter (ownedStore): nobody else can close it.
        ClosingStore store = new ClosingStore();

        RateLimitFilter.builder().ownedStore(store).build().destroy();

        assertThat(store.closed).isEqualTo(1);
    }
}
