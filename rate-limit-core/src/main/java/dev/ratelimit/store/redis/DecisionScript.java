package dev.ratelimit.store.redis;

import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisNoScriptException;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * The decision script ({@code decide.lua}): sent by SHA-1 with EVALSHA, one round trip per decision.
 * A node that does not know it (first use, a restart, a new cluster node, a failover) answers
 * NOSCRIPT; the script is then loaded on the node owning the keys and the call retried once.
 */
final class DecisionScript {
    static final String SOURCE = load();
    static final String SHA1 = sha1(SOURCE);

    private DecisionScript() {
    }

    /**
     * Runs the script; {@code keys} share a hash tag.
     *
     * @return verdict, policy index, remaining, resetAfter µs, retryAfter µs
     */
    static long[] run(UnifiedJedis redis, List<String> keys, List<String> args) {
        Object reply;
        try {
            reply = redis.evalsha(SHA1, keys, args);
        } catch (JedisNoScriptException e) {
            redis.scriptLoad(SOURCE, keys.get(0));
            reply = redis.evalsha(SHA1, keys, args);
        }
        return toLongs(reply);
    }

    private static long[] toLongs(Object reply) {
        if (!(reply instanceof List<?> list) || list.size() != 5) {
            throw new IllegalStateException("unexpected reply from the decision script: " + reply);
        }
        long[] values = new long[5];
        for (int i = 0; i < 5; i++) {
            if (!(list.get(i) instanceof Long value)) {
                throw new IllegalStateException("unexpected reply from the decision script: " + reply);
            }
            values[i] = value;
        }
        return values;
    }

    private static String load() {
        try (InputStream in = DecisionScript.class.getResourceAsStream("decide.lua")) {
            if (in == null) {
                throw new IllegalStateException("decide.lua is missing from the rate-limit-core jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required of every JVM", e);
        }
    }
}
