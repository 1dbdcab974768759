package dev.ratelimit.servlet;

import dev.ratelimit.RateLimitStore;
import dev.ratelimit.store.redis.RedisStore;

/**
 * Builds the Redis store from init-params: the only class of the filter that names
 * {@link RedisStore}, and so the only one that needs Jedis. It is loaded only for a Redis URL.
 */
final class RedisStoreFactory {
    private RedisStoreFactory() {
    }

    /**
     * The store {@code params} describe; unset values keep the store's defaults.
     *
     * @throws dev.ratelimit.InvalidConfigurationException naming the store option that is invalid
     */
    static RateLimitStore create(RedisParams params) {
        RedisStore.Builder builder = RedisStore.builder().url(params.url());
        if (params.failureMode() != null) {
            builder.failureMode(params.failureMode());
        }
        if (params.fallbackShare() != null) {
            builder.fallbackShare(params.fallbackShare());
        }
        if (params.keyPrefix() != null) {
            builder.keyPrefix(params.keyPrefix());
        }
        if (params.clientKeySecret() != null) {
            builder.clientKeySecret(params.clientKeySecret());
        }
        if (params.timeout() != null) {
            builder.connectTimeout(params.timeout()).readTimeout(params.timeout());
        }
        return builder.build();
    }
}
