package dev.ratelimit.servlet;

import dev.ratelimit.FailureMode;
import dev.ratelimit.RateLimitStore;
import dev.ratelimit.store.redis.RedisUrlMask;

import java.time.Duration;
import java.util.regex.Pattern;

/**
 * The init-params of a Redis-backed filter. Kept apart from {@link RedisStoreFactory}, the only class
 * that names the Redis store, so that a filter with {@code store=memory} never loads Jedis (an
 * optional dependency).
 *
 * @param url           {@code redis://}, {@code rediss://}, {@code redis-sentinel://}, {@code redis-cluster://} or {@code rediss-cluster://}
 * @param failureMode   null for the store's default
 * @param fallbackShare null for the store's default
 * @param keyPrefix     null for the store's default
 * @param timeout       connect and read timeout; null for the store's default
 * @param clientKeySecret secret of the keyed client hash; null for plain SHA-256
 * @param passwordFile  where the password is read at each login; null for the URL's
 */
record RedisParams(String url, FailureMode failureMode, Double fallbackShare, String keyPrefix, Duration timeout,
                   String clientKeySecret, String passwordFile) {
    private static final Pattern SCHEME = Pattern.compile("(?i)(redis|rediss|redis-sentinel|redis-cluster|rediss-cluster)://.*");
    /** A URL's user info: from {@code ://} to the URL's last {@code @}, as the store reads it (a password may hold {@code /} or {@code @}). */
    private static final Pattern USER_INFO = Pattern.compile("([A-Za-z][A-Za-z0-9+.-]*://)[^\\s\"]*@");

    static boolean isRedisUrl(String text) {
        return SCHEME.matcher(text).matches();
    }

    /** {@code text} with the user info of any URL in it ({@code user:password@}) replaced by {@code ***@}, and no control characters. */
    static String masked(String text) {
        return ThrottledLog.clean(USER_INFO.matcher(text).replaceAll("$1***@"));
    }

    /** {@code url}, one store URL as configured, as {@link RedisUrlMask} shows it, on one line. */
    static String maskedUrl(String url) {
        return ThrottledLog.clean(RedisUrlMask.mask(url));
    }

    /** The store, its connection checked once ({@code logPrefix} starts the log line that says how it went). */
    RateLimitStore createStore(String logPrefix) {
        try {
            return RedisStoreFactory.create(this, logPrefix);
        } catch (NoClassDefFoundError e) {
            throw new IllegalArgumentException("a Redis store needs redis.clients:jedis on the classpath (missing "
                    + e.getMessage() + ")", e);
        } catch (IllegalStateException e) {
            throw new IllegalArgumentException(e.getMessage(), e); // Jedis or its pool missing, or a Jedis too old for the store
        }
    }

    /** Never shows the URL's password or the secret. */
    @Override
    public String toString() {
        return "RedisParams[url=" + maskedUrl(url) + ", failureMode=" + failureMode + ", fallbackShare=" + fallbackShare
                + ", keyPrefix=" + keyPrefix + ", timeout=" + timeout
                + ", clientKeySecret=" + (clientKeySecret == null ? "none" : "(hidden)") + ", passwordFile=" + passwordFile + "]";
    }
}
