package dev.ratelimit.store.redis;

import java.util.regex.Pattern;

/**
 * Why a connection check failed, as one log-safe line ({@link OutageLog#describe}) with what Redis and
 * Jedis leave out: the key patterns an ACL user needs, why a Sentinel URL may find no sentinel, and why
 * a TLS server may close the connection.
 */
final class CheckFailure {
    /** A key refused by the user's ACL: Redis 6.2 and 7.0 ("one of the keys used as arguments"), 7.2+ and Valkey ("a key"). */
    private static final Pattern KEY_REFUSED = Pattern.compile("NOPERM .*(access a key|keys used as arguments)");
    /**
     * How a client meets a TLS server refusing its certificate (none, or one the server does not trust):
     * with TLS 1.3 the server says so only after the handshake, by closing the connection or an alert.
     */
    private static final Pattern CLOSED_OVER_TLS = Pattern.compile(
            "Broken pipe|Connection reset|certificate_required|bad_certificate|unknown_ca|Unexpected end of file|Remote host terminated");

    private CheckFailure() {
    }

    /**
     * @param e         what the check threw
     * @param keyPrefix the store's key prefix
     * @param tls       whether the store's URL asks for TLS
     * @return the line, without a closing full stop (callers go on with "; starting anyway...")
     */
    static String why(Throwable e, String keyPrefix, boolean tls) {
        String why = OutageLog.describe(e).replaceFirst("(?<!\\.)\\.$", ""); // a full stop, not a shortened line's "..."
        if (KEY_REFUSED.matcher(why).find()) {
            // Redis names neither the key nor the user's patterns; a prefix's own *, ?, [, ] and \ are escaped in one.
            // Reading is not enough (%R~rl:*): a decision's keys are declared for reading and writing.
            return why + " (the user's key patterns must allow reading and writing ~"
                    + keyPrefix.replaceAll("([*?\\[\\]\\\\])", "\\\\$1") + "*)";
        }
        if (tls && CLOSED_OVER_TLS.matcher(why).find()) {
            // Redis logs why ("peer did not return a certificate"); the client sees only the connection closing.
            return why + " (a server that asks for client certificates, tls-auth-clients, closes the connection on a"
                    + " missing or untrusted one: give one with -Djavax.net.ssl.keyStore or sslOptions)";
        }
        if (why.contains("All sentinels down")) {
            // Jedis says why each sentinel failed only in its own WARN lines (a NOAUTH, say).
            return why + " (or they need a password or TLS, which a redis-sentinel:// URL cannot give them: pass a"
                    + " RedisSentinelClient of your own to client(...))";
        }
        return why;
    }
}
