package dev.ratelimit.store.redis;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;

/**
 * What a client key becomes before it goes anywhere near Redis or a log: the first 128 bits of its
 * SHA-256, or of its HMAC-SHA-256 under a secret, base64url (22 characters). Every instance with the
 * same secret (or none) computes the same hash, so they share state; no raw API key is stored in a
 * Redis key. Without a secret, a client id from a small space (an IPv4 address, a short key) can be
 * found by hashing every candidate; with one, only holders of the secret can test candidates.
 */
final class ClientHash {
    private static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();

    private final ThreadLocal<Digest> digests;

    private ClientHash(ThreadLocal<Digest> digests) {
        this.digests = digests;
    }

    /** Plain SHA-256: the same on every instance, with nothing to configure. */
    static ClientHash sha256() {
        return new ClientHash(ThreadLocal.withInitial(() -> {
            MessageDigest sha = newInstance(() -> MessageDigest.getInstance("SHA-256"));
            return sha::digest;
        }));
    }

    /** HMAC-SHA-256 under {@code secret}: the same on every instance configured with that secret. */
    static ClientHash hmacSha256(byte[] secret) {
        SecretKeySpec key = new SecretKeySpec(secret.clone(), "HmacSHA256");
        return new ClientHash(ThreadLocal.withInitial(() -> {
            Mac mac = newInstance(() -> {
                Mac m = Mac.getInstance("HmacSHA256");
                m.init(key);
                return m;
            });
            return mac::doFinal;
        }));
    }

    /** The 22-character hash of {@code key}. */
    String of(String key) {
        byte[] digest = digests.get().digest(key.getBytes(StandardCharsets.UTF_8));
        return BASE64URL.encodeToString(Arrays.copyOf(digest, 16));
    }

    /** One thread's hash function: SHA-256's or HMAC-SHA-256's, both part of every JVM. */
    private interface Digest {
        byte[] digest(byte[] input);
    }

    private interface Factory<T> {
        T create() throws GeneralSecurityException;
    }

    private static <T> T newInstance(Factory<T> factory) {
        try {
            return factory.create();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 and HMAC-SHA-256 are required of every JVM", e);
        }
    }
}
