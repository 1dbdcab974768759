package dev.ratelimit.store.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * What a client key becomes before it goes anywhere near Redis or a log: the first 128 bits of its
 * SHA-256, base64url (22 characters). Every instance computes the same hash, so they share state;
 * no raw API key is stored in a Redis key. (A client id from a small space, such as an IPv4
 * address, can still be found by hashing all candidates; the hash hides secrets, not addresses.)
 */
final class ClientHash {
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    });
    private static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();

    private ClientHash() {
    }

    /** The 22-character hash of {@code key}. */
    static String of(String key) {
        byte[] digest = SHA256.get().digest(key.getBytes(StandardCharsets.UTF_8));
        return BASE64URL.encodeToString(java.util.Arrays.copyOf(digest, 16));
    }
}
