package dev.ratelimit;

/**
 * Where per-key limit state lives: in this JVM ({@code MemoryStore}) or in Redis
 * ({@code RedisStore}). The one extension point between the algorithms and their storage; every
 * implementation passes the same contract test.
 */
public interface RateLimitStore extends AutoCloseable {

    /**
     * A limiter for {@code limit}. Limiters for equal limits share state; binding is not free, so
     * bind once and keep the limiter.
     *
     * @throws NullPointerException for a null limit
     */
    RateLimiter limiter(Limit limit);

    /**
     * Releases connections and threads, if any. What limiters bound before then do is the store's to
     * say: the in-memory store's keep deciding; the Redis store's answer by its failure mode.
     */
    @Override
    default void close() {
    }
}
