package dev.ratelimit.servlet;

import dev.ratelimit.Clock;
import dev.ratelimit.FailureMode;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimitStore;
import dev.ratelimit.config.RateLimitConfig;
import dev.ratelimit.servlet.client.ClientIdResolver;
import dev.ratelimit.servlet.client.TierResolver;
import dev.ratelimit.servlet.headers.HeaderStyle;
import jakarta.servlet.DispatcherType;

import java.util.EnumSet;
import java.util.Set;

/**
 * Everything a {@link RateLimitFilter} runs with, validated: from {@link RateLimitFilterBuilder} or
 * from init-params.
 *
 * @param ownsStore true when the filter created the store and closes it in {@code destroy()}
 * @param shadow    global shadow mode (the configuration's or the filter's)
 */
record Settings(RateLimitConfig config, RateLimitStore store, boolean ownsStore, Clock clock,
                ClientIdResolver clients, Ipv6Networks ipv6Networks, TierResolver tiers, RateLimitListener listener,
                HeaderStyle headerStyle, boolean shadow, FailureMode failureMode,
                Set<DispatcherType> dispatcherTypes) {

    Settings {
        // An EnumSet's contains is one bit test; a wrapper around one adds a call per request.
        dispatcherTypes = EnumSet.copyOf(dispatcherTypes);
    }
}
