package dev.ratelimit.bench.memory;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import java.time.Duration;

/**
 * The per-key container every peer gets, since none of them has a per-key store of its own: a
 * Caffeine cache bounded by size and expiring idle keys, as a Bucket4j user is told to build one
 * (bounded memory needs both: the size cap against invented keys, the expiry to drop idle clients).
 */
final class PerKeyCache {
    /** Longer than any run, so expiry never fires during one; its bookkeeping is still paid on every read. */
    static final Duration EXPIRE_AFTER_ACCESS = Duration.ofHours(1);

    private PerKeyCache() {
    }

    static <V> Cache<String, V> create(int maxKeys) {
        return Caffeine.newBuilder()
                .maximumSize(maxKeys)
                .expireAfterAccess(EXPIRE_AFTER_ACCESS)
                .build();
    }
}
