package dev.ratelimit.store.redis;

import java.util.regex.Pattern;

/**
 * Why a connection check failed, as one log-safe line ({@link OutageLog#describe}) with what Redis and
 * Jedis leave out: the key patterns an ACL user needs, and why a Sentinel URL may find no sentinel.
 */
final class CheckFailure {
    /** A key refused by the user's ACL: Redis 6.2 and 7.0 ("one of the keys used as arguments"), 7.2+ and Valkey ("a key"). */
    private static final Pattern KEY_REFUSED = Pattern.compile("NOPERM .*(access a key|keys used as arguments)");

    private CheckFailure() {
    }

    /**
     * @param e         what the check threw
     * @param keyPrefix the store's key prefix
     * @return the line, without a closing full stop (callers go on with "; starting anyway...")
     */
    static String why(Throwable e, String keyPrefix) {
        String why = OutageLog.describe(e).replaceFirst("\\.$", "");
        if (KEY_REFUSED.matcher(why).find()) {
            // Redis names neither the key nor the user's patterns; a prefix's own *, ?, [, ] and \ are escaped in one.
            return why + " (the user's key patterns must allow ~" + keyPrefix.replaceAll("([*?\\[\\]\\\\])", "\\\\$1") + "*)";
        }
        if (why.contains("All sentinels down")) {
            // Jedis says why each sentinel failed only in its own WARN lines (a NOAUTH, say).
            return why + " (or they need a password or TLS, which a redis-sentinel:// URL cannot give them: pass a"
                    + " RedisSentinelClient of your own to client(...))";
        }
        return why;
    }
}
