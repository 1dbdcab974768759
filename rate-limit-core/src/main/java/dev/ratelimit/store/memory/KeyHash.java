package dev.ratelimit.store.memory;

import java.util.Random;

/**
 * A keyed 64-bit hash of a key's characters, four at a time. The in-memory store keeps only this
 * hash (never the key), so memory per client does not grow with key length and no raw API key sits
 * in the heap after the request. Two honest keys share state with probability about n^2 / 2^57
 * (under 10^-5 for a million keys).
 *
 * <p>Each block is folded in by a full 64 x 64 -> 128-bit product of the block and the state, each
 * masked with a secret drawn per store, folded to 64 bits (high half xor low half): how a change in
 * the characters moves the result depends on the secrets, so keys built without them collide with a
 * chosen key no more often than chance. (A xor-and-multiply-by-a-constant step would not do: it
 * carries a flipped top bit through unchanged, which lets anyone write two keys that collide under
 * every seed.) Not a cryptographic MAC, but the same construction as the seeded hashes that
 * language runtimes use against hash flooding.
 */
final class KeyHash {
    private static final long M = 0x9E3779B97F4A7C15L;

    private final long secret0;
    private final long secret1;

    /** A hash with secrets drawn from {@code random} (a {@link java.security.SecureRandom} in the store). */
    KeyHash(Random random) {
        this.secret0 = random.nextLong();
        this.secret1 = random.nextLong();
    }

    long hash(String key) {
        int length = key.length();
        long h = secret0 ^ (length * M);
        int i = 0;
        for (; i + 4 <= length; i += 4) {
            long w = key.charAt(i) | (long) key.charAt(i + 1) << 16 | (long) key.charAt(i + 2) << 32 | (long) key.charAt(i + 3) << 48;
            h = fold(w ^ secret1, h);
        }
        long tail = 0;
        for (int shift = 0; i < length; i++, shift += 16) {
            tail |= (long) key.charAt(i) << shift;
        }
        h = fold(tail ^ secret1, h);
        // MurmurHash3's fmix64: every input bit reaches every output bit.
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        h ^= h >>> 33;
        return h;
    }

    /** The 128-bit product of {@code a} and {@code b}, its halves xored. */
    private static long fold(long a, long b) {
        return a * b ^ Math.multiplyHigh(a, b);
    }
}
