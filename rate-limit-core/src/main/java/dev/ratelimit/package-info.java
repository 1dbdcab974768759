/**
 * The API: {@link dev.ratelimit.Policy policies} (five algorithms as validated records), a
 * {@link dev.ratelimit.Limit} of one or more policies, the {@link dev.ratelimit.RateLimiter} that
 * decides a key's request against it, the {@link dev.ratelimit.Decision} it returns, the
 * {@link dev.ratelimit.RateLimitStore} that keeps state, the {@link dev.ratelimit.Waiter} that waits
 * for quota instead of refusing, the {@link dev.ratelimit.Clock} seam and the
 * {@link dev.ratelimit.RateLimitListener} extension point.
 *
 * <p>Errors, in every package of the library: an invalid configuration value (a policy's numbers, a
 * builder's option, an init-param, the JSON configuration, an argument of a factory that builds
 * configuration such as {@code TrustedProxies.of}; null included) is an
 * {@link dev.ratelimit.InvalidConfigurationException} naming the field and the value, thrown where it is
 * given or at the latest by {@code build()}. An invalid request (a null key, a cost below 1) is an
 * {@link java.lang.IllegalArgumentException}. Null given to any other operation
 * ({@code store.limiter(null)}, {@code new ManualClock(null)}, {@code MicrometerListener.of(null)}) is a
 * {@link java.lang.NullPointerException}, but where an operation's Javadoc says what null gives (the
 * address parsers of {@code IpAddresses} answer "not an address").
 */
package dev.ratelimit;
