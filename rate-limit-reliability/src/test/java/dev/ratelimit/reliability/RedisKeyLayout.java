package dev.ratelimit.reliability;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;
import java.util.regex.Pattern;

/**
 * The Redis key layout as the README's "Redis store" section documents it, {@code <prefix><limit>:<fingerprint>:{<client hash>}:<policy>},
 * with the client hash the first 128 bits of SHA-256 of the client id, base64url: to find which
 * cluster slot a client's keys live in, and to recognise a well-formed key.
 */
final class RedisKeyLayout {
    /** Every key the limiter writes with the default prefix: nothing of the raw client id in it. */
    static final Pattern KEY = Pattern.compile("rl:[a-z]+:[0-9a-f]{16}:\\{[A-Za-z0-9_-]{22}\\}:\\d+");

    private RedisKeyLayout() {
    }

    /** The hash tag of an API key's client id, e.g. {@code {q3Zx...}}: what decides its cluster slot. */
    static String hashTag(String apiKey) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(("apikey:" + apiKey).getBytes(StandardCharsets.UTF_8));
            return "{" + Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOf(digest, 16)) + "}";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
