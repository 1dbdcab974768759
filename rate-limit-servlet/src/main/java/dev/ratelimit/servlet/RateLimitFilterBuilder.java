package dev.ratelimit.servlet;

import dev.ratelimit.Clock;
import dev.ratelimit.FailureMode;
import dev.ratelimit.InvalidConfigurationException;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimitStore;
import dev.ratelimit.config.RateLimitConfig;
import dev.ratelimit.servlet.client.ApiKeyVerifier;
import dev.ratelimit.servlet.client.ClientIdResolver;
import dev.ratelimit.servlet.client.ForwardedHeader;
import dev.ratelimit.servlet.client.TierResolver;
import dev.ratelimit.servlet.client.TrustedProxies;
import dev.ratelimit.servlet.headers.HeaderStyle;
import dev.ratelimit.store.memory.MemoryStore;
import jakarta.servlet.DispatcherType;
import org.slf4j.LoggerFactory;

import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Builds a {@link RateLimitFilter} in code; every option has a default, so
 * {@code RateLimitFilter.builder().build()} is the bundled configuration over an in-memory store.
 * Setters refuse null and some values at once; {@link #build()} checks the others (the API key
 * header's form and length among them) and the combination, and binds every limit to the store. Errors are
 * {@link InvalidConfigurationException}s naming the option and the value.
 *
 * <pre>{@code
 * RateLimitFilter filter = RateLimitFilter.builder()
 *         .config(RateLimitConfig.fromClasspath("rate-limits.json"))
 *         .store(redisStore)
 *         .trustedProxies("10.0.0.0/8")
 *         .headerStyle(HeaderStyle.IETF)
 *         .build();
 * FilterRegistration.Dynamic rateLimit = servletContext.addFilter("rateLimit", filter);
 * rateLimit.setAsyncSupported(true);   // else a servlet behind it cannot startAsync()
 * rateLimit.addMappingForUrlPatterns(null, false, "/*");
 * }</pre>
 */
public final class RateLimitFilterBuilder {
    /** The default API key header. */
    public static final String DEFAULT_API_KEY_HEADER = "X-API-Key";
    /** The default cap on API key length, in characters. */
    public static final int DEFAULT_MAX_API_KEY_LENGTH = 256;

    private RateLimitConfig config;
    private RateLimitStore store;
    private Clock clock = Clock.system();
    private ClientIdResolver clientIdResolver;
    private TierResolver tierResolver;
    private RateLimitListener listener = RateLimitListener.NONE;
    private HeaderStyle headerStyle = HeaderStyle.BOTH;
    private TrustedProxies trustedProxies = TrustedProxies.none();
    private ForwardedHeader forwardedHeader = ForwardedHeader.X_FORWARDED_FOR;
    private ApiKeyVerifier apiKeyVerifier = ApiKeyVerifier.ANY_KEY;
    private boolean forwardedHeaderSet;
    private String apiKeyHeader = DEFAULT_API_KEY_HEADER;
    private int maxApiKeyLength = DEFAULT_MAX_API_KEY_LENGTH;
    private Ipv6Networks ipv6Networks = new Ipv6Networks(Ipv6Networks.DEFAULT_PREFIX_LENGTH);
    private boolean identityOptionSet;
    private Set<DispatcherType> dispatcherTypes = EnumSet.of(DispatcherType.REQUEST);
    private boolean shadow;
    private FailureMode failureMode = FailureMode.FAIL_OPEN;
    private boolean ownsStore;

    RateLimitFilterBuilder() {
    }

    /**
     * Tiers, endpoints, allowlist and shadow mode (default {@link RateLimitConfig#defaults()}).
     *
     * @param config the configuration
     * @return this builder
     * @throws dev.ratelimit.InvalidConfigurationException if {@code config} is null or the filter cannot use it: a
     *         rule path that is not normalized, a limit no rule names, an allowlist entry it cannot read
     */
    public RateLimitFilterBuilder config(RateLimitConfig config) {
        Enforcer.check(required("config", config));
        this.config = config;
        return this;
    }

    /**
     * Where limit state lives (default: a {@link MemoryStore} on {@link #clock}, closed by the
     * filter's {@code destroy()}). A store given here is the caller's to close.
     *
     * @param store the store
     * @return this builder
     * @throws InvalidConfigurationException if {@code store} is null
     */
    public RateLimitFilterBuilder store(RateLimitStore store) {
        this.store = required("store", store);
        return this;
    }

    /**
     * The time for {@code X-RateLimit-Reset} and for the default store (default {@link Clock#system()}).
     *
     * @param clock the clock
     * @return this builder
     * @throws InvalidConfigurationException if {@code clock} is null
     */
    public RateLimitFilterBuilder clock(Clock clock) {
        this.clock = required("clock", clock);
        return this;
    }

    /**
     * Who a request comes from (default {@link ClientIdResolver#apiKeyOrIp} with this builder's API key
     * header, key length cap, trusted proxies, forwarded header and API key verifier, which then must
     * not be set).
     *
     * @param resolver the resolver
     * @return this builder
     * @throws InvalidConfigurationException if {@code resolver} is null
     */
    public RateLimitFilterBuilder clientIdResolver(ClientIdResolver resolver) {
        this.clientIdResolver = required("clientIdResolver", resolver);
        return this;
    }

    /**
     * Which tier a client is in (default {@link TierResolver#byKeyPrefix} with the configuration's prefixes).
     *
     * @param resolver the resolver
     * @return this builder
     * @throws InvalidConfigurationException if {@code resolver} is null
     */
    public RateLimitFilterBuilder tierResolver(TierResolver resolver) {
        this.tierResolver = required("tierResolver", resolver);
        return this;
    }

    /**
     * Hears every decision (default {@link RateLimitListener#NONE}, which costs nothing).
     *
     * @param listener the listener
     * @return this builder
     * @throws InvalidConfigurationException if {@code listener} is null
     */
    public RateLimitFilterBuilder listener(RateLimitListener listener) {
        this.listener = required("listener", listener);
        return this;
    }

    /**
     * Which rate-limit header fields to send (default {@link HeaderStyle#BOTH}).
     *
     * @param style the header style
     * @return this builder
     * @throws InvalidConfigurationException if {@code style} is null
     */
    public RateLimitFilterBuilder headerStyle(HeaderStyle style) {
        this.headerStyle = required("headerStyle", style);
        return this;
    }

    /**
     * The proxies whose forwarding header is believed, as CIDR blocks (default none).
     *
     * @param cidrs the blocks, e.g. {@code 10.0.0.0/8}
     * @return this builder
     * @throws InvalidConfigurationException as {@link TrustedProxies#of}
     */
    public RateLimitFilterBuilder trustedProxies(String... cidrs) {
        // Arrays.asList, not List.of: a null entry must reach TrustedProxies.of, which names its index.
        return trustedProxies(Arrays.asList(required("trustedProxies", cidrs)));
    }

    /**
     * The proxies whose forwarding header is believed, as CIDR blocks (default none).
     *
     * @param cidrs the blocks, e.g. {@code 10.0.0.0/8}
     * @return this builder
     * @throws InvalidConfigurationException as {@link TrustedProxies#of}
     */
    public RateLimitFilterBuilder trustedProxies(List<String> cidrs) {
        this.trustedProxies = TrustedProxies.of(required("trustedProxies", cidrs));
        this.identityOptionSet = true;
        return this;
    }

    /**
     * The forwarding header the trusted proxies write (default {@link ForwardedHeader#X_FORWARDED_FOR}).
     * It is read only from {@link #trustedProxies(List) trusted proxies}: setting it without them fails
     * {@link #build()}.
     *
     * @param header the forwarding header
     * @return this builder
     * @throws InvalidConfigurationException if {@code header} is null
     */
    public RateLimitFilterBuilder forwardedHeader(ForwardedHeader header) {
        this.forwardedHeader = required("forwardedHeader", header);
        this.forwardedHeaderSet = true;
        this.identityOptionSet = true;
        return this;
    }

    /**
     * The header carrying the API key (default {@value #DEFAULT_API_KEY_HEADER}); with {@code Authorization},
     * the token of {@code Bearer <token>}. Its form is checked by {@link #build()}.
     *
     * @param header the header's name
     * @return this builder
     * @throws InvalidConfigurationException if {@code header} is null
     */
    public RateLimitFilterBuilder apiKeyHeader(String header) {
        this.apiKeyHeader = required("apiKeyHeader", header);
        this.identityOptionSet = true;
        return this;
    }

    /**
     * Which API keys are real (default {@link ApiKeyVerifier#ANY_KEY}: every well-formed key). A request
     * whose key it does not know is counted as its address, as if it had sent no key, so invented keys
     * get no quota of their own and cannot escape the address's limits.
     *
     * @param verifier the verifier
     * @return this builder
     * @throws InvalidConfigurationException if {@code verifier} is null
     */
    public RateLimitFilterBuilder apiKeyVerifier(ApiKeyVerifier verifier) {
        this.apiKeyVerifier = required("apiKeyVerifier", verifier);
        this.identityOptionSet = true;
        return this;
    }

    /**
     * The longest API key accepted; longer ones get a 400 (default {@value #DEFAULT_MAX_API_KEY_LENGTH}).
     *
     * @param length the cap in characters, 1 to 8192 (checked by {@link #build()})
     * @return this builder
     */
    public RateLimitFilterBuilder maxApiKeyLength(int length) {
        this.maxApiKeyLength = length;
        this.identityOptionSet = true;
        return this;
    }

    /**
     * How many leading bits of an IPv6 client's address say who it is, 32 to 128 (default 64): a
     * client {@code ip:2001:db8:1:2:a:b:c:d} is counted as {@code ip:2001:db8:1:2::/64}, since whoever
     * has one address of a /64 can send from all of them. 128 counts each address on its own. Applies
     * to the ids of any {@link ClientIdResolver}; allowlist entries and the {@link TierResolver} still
     * see the address. IPv4 clients are always counted per address.
     *
     * @param length the prefix length, 32 to 128
     * @return this builder
     * @throws InvalidConfigurationException when it is out of range
     */
    public RateLimitFilterBuilder ipv6PrefixLength(int length) {
        this.ipv6Networks = new Ipv6Networks(length);
        return this;
    }

    /**
     * The dispatches that are counted (default {@code REQUEST} only). Whatever the set, a request is
     * counted at most once, however often it is forwarded, included, re-dispatched or sent to an
     * error page.
     *
     * @param first one dispatcher type
     * @param rest  any others
     * @return this builder
     * @throws InvalidConfigurationException if any of them is null
     */
    public RateLimitFilterBuilder dispatcherTypes(DispatcherType first, DispatcherType... rest) {
        EnumSet<DispatcherType> types = EnumSet.of(required("dispatcherTypes", first));
        for (DispatcherType type : required("dispatcherTypes", rest)) {
            types.add(required("dispatcherTypes", type));
        }
        this.dispatcherTypes = types;
        return this;
    }

    /**
     * Shadow mode everywhere: decide, send headers, notify the listener, never refuse (default false;
     * also on when the configuration says so).
     *
     * @param shadow true for shadow mode
     * @return this builder
     */
    public RateLimitFilterBuilder shadow(boolean shadow) {
        this.shadow = shadow;
        return this;
    }

    /**
     * What to do when resolving the client or deciding fails unexpectedly (an exception, not a
     * decision): {@link FailureMode#FAIL_CLOSED} answers 503 with {@code Retry-After: 1}; the others
     * pass the request on without limit headers (default {@link FailureMode#FAIL_OPEN}). A store's
     * own failure mode (Redis down) is the store's setting.
     *
     * @param mode the failure mode
     * @return this builder
     * @throws InvalidConfigurationException if {@code mode} is null
     */
    public RateLimitFilterBuilder failureMode(FailureMode mode) {
        this.failureMode = required("failureMode", mode);
        return this;
    }

    /** Marks the store as created for the filter, to be closed by it (init-params). */
    RateLimitFilterBuilder ownedStore(RateLimitStore store) {
        this.store = store;
        this.ownsStore = true;
        return this;
    }

    /**
     * The filter, with every limit bound to the store.
     *
     * @return the filter, ready for the container
     * @throws InvalidConfigurationException when options conflict (a resolver of your own with the default
     *                                       resolver's options; a forwarded header without trusted proxies),
     *                                       the API key header or length is invalid, or an allowlisted API
     *                                       key is longer than the default resolver accepts
     * @throws IllegalStateException         without a configuration set and without jackson-databind on the
     *                                       class path (as {@link RateLimitConfig#defaults()})
     */
    public RateLimitFilter build() {
        return new RateLimitFilter(settings("RateLimitFilter: "));
    }

    /** @param logPrefix starts the line that warns of a trusted proxy block holding every address */
    Settings settings(String logPrefix) {
        if (clientIdResolver != null && identityOptionSet) {
            throw new InvalidConfigurationException("clientIdResolver", "apiKeyHeader, maxApiKeyLength, trustedProxies, "
                    + "forwardedHeader and apiKeyVerifier configure the default resolver; set them on your own resolver instead");
        }
        if (forwardedHeaderSet && trustedProxies.isEmpty()) {
            throw new InvalidConfigurationException("forwardedHeader", "is read only from trusted proxies, but trustedProxies "
                    + "is empty; was " + forwardedHeader.headerName());
        }
        if (clientIdResolver == null && trustedProxies.everyAddressBlock() != null) {
            LoggerFactory.getLogger(RateLimitFilter.class).warn(logPrefix + "trusted proxies include "
                    + trustedProxies.everyAddressBlock() + ", every address: a client that reaches the application directly, "
                    + "not through a proxy, chooses its own address (and quota) by writing the forwarding header; list your "
                    + "proxies' addresses instead unless only they can reach it");
        }
        RateLimitConfig cfg = config != null ? config : RateLimitConfig.defaults();
        ClientIdResolver clients = clientIdResolver != null ? clientIdResolver
                : ClientIdResolver.apiKeyOrIp(apiKeyHeader, maxApiKeyLength, trustedProxies, forwardedHeader, apiKeyVerifier);
        if (clientIdResolver == null) {
            requireAcceptedKeys(cfg.allowlist().clients());
        }
        TierResolver tiers = tierResolver != null ? tierResolver : TierResolver.byKeyPrefix(cfg.tierPrefixes(), cfg.defaultTier());
        boolean owns = ownsStore || store == null;
        RateLimitStore st = store != null ? store : MemoryStore.builder().clock(clock).build();
        return new Settings(cfg, st, owns, clock, clients, ipv6Networks, tiers, listener, headerStyle, shadow, failureMode,
                Collections.unmodifiableSet(EnumSet.copyOf(dispatcherTypes)));
    }

    /** An allowlisted API key longer than the default resolver accepts could never match: it is refused with a 400. */
    private void requireAcceptedKeys(List<String> allowlisted) {
        for (int i = 0; i < allowlisted.size(); i++) {
            String entry = allowlisted.get(i).trim();
            int keyLength = entry.length() - "apikey:".length();
            if (entry.startsWith("apikey:") && keyLength > maxApiKeyLength) {
                // The key itself is not shown: errors reach logs.
                throw new InvalidConfigurationException("allowlist.clients[" + i + "]", "can never match: an API key of "
                        + keyLength + " characters (not shown), longer than maxApiKeyLength " + maxApiKeyLength
                        + ", whose requests are refused with a 400; raise maxApiKeyLength or correct the key");
            }
        }
    }

    private static <T> T required(String option, T value) {
        if (value == null) {
            throw new InvalidConfigurationException(option, "must not be null");
        }
        return value;
    }
}
