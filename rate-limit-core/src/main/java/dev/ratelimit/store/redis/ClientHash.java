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

    /**
     * Each thread's {@link MessageDigest} or {@link Mac}: JDK objects only, since a container's threads
     * outlive an undeployed application and must not keep its class loader (a lambda of ours would).
     */
    private final ThreadLocal<Object> engines;

    private ClientHash(ThreadLocal<Object> engines) {
        this.engines = engines;
    }

    /** Plain SHA-256: the same on every instance, with nothing to configure. */
    static ClientHash sha256() {
        return new ClientHash(ThreadLocal.withInitial(() -> newInstance(() -> MessageDigest.getInstance("SHA-256"))));
    }

    /** HMAC-SHA-256 under {@code secret}: the same on every instance configured with that secret. */
    static ClientHash hmacSha256(byte[] secret) {
        SecretKeySpec key = new SecretKeySpec(secret.clone(), "HmacSHA256");
        return new ClientHash(ThreadLocal.withInitial(() -> newInstance(() -> {
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(key);
            return m;
        })));
    }

    /** The 22-character hash of {@code key}. */
    String of(String key) {
        byte[] input = bytes(key);
        Object engine = engines.get();
        byte[] digest = engine instanceof Mac mac ? mac.doFinal(input) : ((MessageDigest) engine).digest(input);
        return BASE64URL.encodeToString(Arrays.copyOf(digest, 16));
    }

    /**
     * The UTF-8 of {@code key}; for a key with an unpaired surrogate (which UTF-8 would write as
     * {@code ?}, making it another client's key) its UTF-16 after a 0xFF byte, which UTF-8 never holds.
     */
    private static byte[] bytes(String key) {
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < key.length() && Character.isLowSurrogate(key.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                // Written char by char: every encoder replaces a lone surrogate.
                byte[] utf16 = new byte[1 + 2 * key.length()];
                utf16[0] = (byte) 0xFF;
                for (int j = 0; j < key.length(); j++) {
                    utf16[1 + 2 * j] = (byte) (key.charAt(j) >>> 8);
                    utf16[2 + 2 * j] = (byte) key.charAt(j);
                }
                return utf16;
            }
        }
        return key.getBytes(StandardCharsets.UTF_8);
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
