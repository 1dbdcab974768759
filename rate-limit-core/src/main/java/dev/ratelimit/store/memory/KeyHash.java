package dev.ratelimit.store.memory;

/**
 * A seeded 64-bit hash of a key's characters, four at a time. The in-memory store keeps only this
 * hash (never the key), so memory per client does not grow with key length and no raw API key sits
 * in the heap after the request. With a per-store random seed, two honest keys share state with
 * probability about n^2 / 2^57 (under 10^-5 for a million keys), and a client cannot aim a collision
 * at another's key without the seed.
 */
final class KeyHash {
    private static final long M = 0x9E3779B97F4A7C15L;

    private KeyHash() {
    }

    static long hash(String key, long seed) {
        int length = key.length();
        long h = seed ^ (length * M);
        int i = 0;
        for (; i + 4 <= length; i += 4) {
            long w = key.charAt(i) | (long) key.charAt(i + 1) << 16 | (long) key.charAt(i + 2) << 32 | (long) key.charAt(i + 3) << 48;
            h = (h ^ w) * M;
            h ^= h >>> 32;
        }
        long tail = 0;
        for (int shift = 0; i < length; i++, shift += 16) {
            tail |= (long) key.charAt(i) << shift;
        }
        h = (h ^ tail) * M;
        // MurmurHash3's fmix64: every input bit reaches every output bit.
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        h ^= h >>> 33;
        return h;
    }
}
