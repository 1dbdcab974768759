package dev.ratelimit.servlet;

import dev.ratelimit.FailureMode;
import dev.ratelimit.RateLimitStore;
import dev.ratelimit.store.redis.RedisStore;
import org.slf4j.LoggerFactory;

/**
 * Builds the Redis store from init-params: the only class of the filter that names
 * {@link RedisStore}, and so the only one that needs Jedis. It is loaded only for a Redis URL.
 */
final class RedisStoreFactory {
    private RedisStoreFactory() {
    }

    /**
     * The store {@code params} describe; unset values keep the store's defaults. Its connection is
     * checked once, so that a wrong URL, password or TLS setting shows in the start-up log (a line
     * starting with {@code logPrefix}) rather than at the first request; start-up goes on either way,
     * the failure mode deciding until Redis answers.
     *
     * @throws dev.ratelimit.InvalidConfigurationException naming the store option that is invalid
     */
    static RateLimitStore create(RedisParams params, String logPrefix) {
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
        if (params.passwordFile() != null) {
            try {
                builder.passwordFile(java.nio.file.Path.of(params.passwordFile()));
            } catch (java.nio.file.InvalidPathException e) {
                throw new dev.ratelimit.InvalidConfigurationException("passwordFile", "must name the file holding the Redis "
                        + "password on its first line");
            }
        }
        if (params.timeout() != null) {
            builder.connectTimeout(params.timeout()).readTimeout(params.timeout());
        }
        RedisStore store = builder.build();
        try {
            store.checkConnection();
            // The store's toString: its URL and key prefix as its own lines name them, and its failure mode.
            LoggerFactory.getLogger(RateLimitFilter.class).info(logPrefix + store + " answered its connection check");
        } catch (IllegalStateException e) {
            FailureMode mode = params.failureMode() == null ? FailureMode.LOCAL_FALLBACK : params.failureMode();
            LoggerFactory.getLogger(RateLimitFilter.class).warn(logPrefix + RedisParams.masked(String.valueOf(e.getMessage()))
                    + "; starting anyway: until Redis answers, each decision follows failure mode " + mode);
        }
        return store;
    }
}
