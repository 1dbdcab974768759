package dev.ratelimit.store.memory;

import dev.ratelimit.Clock;
import dev.ratelimit.InvalidConfigurationException;
import dev.ratelimit.Limit;
import dev.ratelimit.RateLimitStore;
import dev.ratelimit.RateLimiter;

import java.security.SecureRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Keeps every key's limit state in this JVM: exact, lock-striped, and bounded.
 *
 * <ul>
 *   <li><b>Lazy:</b> a key's state is created by its first request, and a limit's shards by their first key (a bound limit costs about 1 KB).</li>
 *   <li><b>Exact under contention:</b> each key is decided under its shard's lock (64 shards per
 *       limit at most, 128 keys of the cap or more each; no lock across keys of different shards, no
 *       lock held across limits), so N threads racing on one key admit exactly what the policy allows.</li>
 *   <li><b>Bounded:</b> at most {@link Builder#maxKeysPerLimit} keys per limit (default
 *       {@value #DEFAULT_MAX_KEYS_PER_LIMIT}), counted over the whole limit (threads adding new keys
 *       at the same instant may take it a few keys over): eviction starts when the limit holds the
 *       cap (a shard would evict earlier only if it drew over twice its share of the keys). An entry whose state is fresh again (bucket full, window
 *       over) is dropped as new keys arrive and by {@link #cleanUp()}; at the cap, the least-used
 *       entries go first, so a flood of invented keys cannot push out the clients that keep coming
 *       back while they hold at most about a third of the cap (see the README). Memory per key is a fixed slot of 8 bytes plus the algorithm's state (16-24 bytes),
 *       with a table at most 75% full (7/8 in a shard that draws more than its share); only a 56-bit hash of the key is kept, never the key.</li>
 *   <li><b>Cheap:</b> a decision is a hash, one probe into a flat {@code long[]}, and the
 *       {@link dev.ratelimit.Decision} it returns; no background thread.</li>
 * </ul>
 *
 * <p>State lives in one JVM: several instances behind a load balancer each enforce the full limit.
 * Use the Redis store to share it.
 *
 * <pre>{@code
 * MemoryStore store = MemoryStore.builder().maxKeysPerLimit(50_000).build();
 * RateLimiter scan = store.limiter(Limit.of("scan", TokenBucket.perSecond(10, 1)));
 * }</pre>
 */
public final class MemoryStore implements RateLimitStore {
    /** The default cap on tracked keys per limit. */
    public static final int DEFAULT_MAX_KEYS_PER_LIMIT = 100_000;

    private final Clock clock;
    private final int maxKeysPerLimit;
    private final KeyHash keyHash;
    private final ConcurrentMap<String, MemoryRateLimiter> limiters = new ConcurrentHashMap<>();

    private MemoryStore(Builder builder) {
        this.clock = builder.clock;
        this.maxKeysPerLimit = builder.maxKeysPerLimit;
        this.keyHash = new KeyHash(new SecureRandom());
    }

    /**
     * A builder with the system clock and the default cap.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public RateLimiter limiter(Limit limit) {
        return limiters.computeIfAbsent(limit.name() + '/' + limit.fingerprint(),
                id -> new MemoryRateLimiter(limit, clock, maxKeysPerLimit, keyHash));
    }

    /**
     * Keys currently tracked over all limits (fresh entries not yet swept included).
     *
     * @return the number of keys
     */
    public long trackedKeys() {
        long total = 0;
        for (MemoryRateLimiter limiter : limiters.values()) {
            total += limiter.trackedKeys();
        }
        return total;
    }

    /**
     * Clients whose state was dropped at the cap while it still counted, over all limits since the store
     * was built: each such client starts over with a full quota when it comes back, so a growing count
     * says {@link Builder#maxKeysPerLimit} is too small for the clients you have (or that a flood of
     * invented keys is pushing out others). Entries dropped because their state was fresh again are not
     * counted: forgetting them changes nothing.
     *
     * @return the number of such evictions
     */
    public long evictions() {
        long total = 0;
        for (MemoryRateLimiter limiter : limiters.values()) {
            total += limiter.evictions();
        }
        return total;
    }

    /** Drops every entry whose state is fresh again; decisions also do this a little at a time. */
    public void cleanUp() {
        for (MemoryRateLimiter limiter : limiters.values()) {
            limiter.cleanUp();
        }
    }

    @Override
    public String toString() {
        return "MemoryStore[maxKeysPerLimit=" + maxKeysPerLimit + ", limits=" + limiters.size() + "]";
    }

    /** Options of a {@link MemoryStore}; each setter validates its argument. */
    public static final class Builder {
        private Clock clock = Clock.system();
        private int maxKeysPerLimit = DEFAULT_MAX_KEYS_PER_LIMIT;

        private Builder() {
        }

        /**
         * The time source (default {@link Clock#system()}).
         *
         * @param clock the clock
         * @return this builder
         * @throws InvalidConfigurationException if {@code clock} is null
         */
        public Builder clock(Clock clock) {
            if (clock == null) {
                throw new InvalidConfigurationException("clock", "must not be null");
            }
            this.clock = clock;
            return this;
        }

        /**
         * The most keys tracked per limit (default {@value #DEFAULT_MAX_KEYS_PER_LIMIT}).
         *
         * @param maxKeysPerLimit the cap, {@code >= 1}
         * @return this builder
         * @throws InvalidConfigurationException if {@code maxKeysPerLimit < 1}
         */
        public Builder maxKeysPerLimit(int maxKeysPerLimit) {
            if (maxKeysPerLimit < 1) {
                throw new InvalidConfigurationException("maxKeysPerLimit", "must be >= 1, was " + maxKeysPerLimit);
            }
            this.maxKeysPerLimit = maxKeysPerLimit;
            return this;
        }

        /**
         * The store.
         *
         * @return a new store with these options
         */
        public MemoryStore build() {
            return new MemoryStore(this);
        }
    }
}
