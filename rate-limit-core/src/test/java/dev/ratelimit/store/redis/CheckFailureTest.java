package dev.ratelimit.store.redis;

import org.junit.jupiter.api.Test;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisConnectionException;

import static org.assertj.core.api.Assertions.assertThat;

class CheckFailureTest {
    private static final String KEYS_HINT = " (the user's key patterns must allow reading and writing ~rl:*)";

    @Test
    void aKeyOutsideTheUsersPatternsNamesThePatternNeededInEveryRedisWording() {
        assertThat(CheckFailure.why(new JedisAccessControlException(
                "NOPERM this user has no permissions to access one of the keys used as arguments"), "rl:", false))
                .as("Redis 6.2 and 7.0").endsWith("used as arguments" + KEYS_HINT);
        assertThat(CheckFailure.why(new JedisAccessControlException("NOPERM No permissions to access a key"), "rl:", false))
                .as("Redis 7.2+ and Valkey").endsWith("access a key" + KEYS_HINT);
        assertThat(CheckFailure.why(new JedisAccessControlException("NOPERM No permissions to access a key"), "a*b?[c]:", false))
                .as("glob characters of the prefix escaped").endsWith("(the user's key patterns must allow reading and writing ~a\\*b\\?\\[c\\]:*)");
    }

    @Test
    void aConnectionClosedOverTlsMayBeARefusedClientCertificate() {
        JedisConnectionException closed = new JedisConnectionException(new java.net.SocketException("Broken pipe"));
        assertThat(CheckFailure.why(closed, "rl:", true)).endsWith("Broken pipe) (a server that asks for client certificates,"
                + " tls-auth-clients, closes the connection on a missing or untrusted one: give one with -Djavax.net.ssl.keyStore"
                + " or sslOptions)");
        assertThat(CheckFailure.why(closed, "rl:", false)).as("not over TLS").doesNotContain("certificate");
        assertThat(CheckFailure.why(new JedisConnectionException("Read timed out"), "rl:", true)).doesNotContain("certificate");
    }

    @Test
    void aShortenedLineKeepsItsEllipsisWhereAFullStopGoes() {
        assertThat(CheckFailure.why(new JedisConnectionException("x".repeat(400)), "rl:", false)).endsWith("x...");
    }

    @Test
    void aRefusedCommandOrChannelGetsNoKeyHint() {
        assertThat(CheckFailure.why(new JedisAccessControlException(
                "NOPERM User keyholder has no permissions to run the 'fcall' command"), "rl:", false)).doesNotContain("key patterns");
        assertThat(CheckFailure.why(new JedisAccessControlException("NOPERM No permissions to access a channel"), "rl:", false))
                .doesNotContain("key patterns");
    }

    @Test
    void noSentinelAnsweringMayMeanTheyNeedAPasswordAndTheFullStopGoes() {
        assertThat(CheckFailure.why(new JedisConnectionException("All sentinels down, cannot determine where mymaster is running."), "rl:", false))
                .isEqualTo("JedisConnectionException: All sentinels down, cannot determine where mymaster is running"
                        + " (or they need a password or TLS, which a redis-sentinel:// URL cannot give them: pass a"
                        + " RedisSentinelClient of your own to client(...))");
    }
}
