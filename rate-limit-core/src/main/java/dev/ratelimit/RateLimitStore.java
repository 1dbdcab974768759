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
     */
    RateLimiter limiter(Limit limit);

    /** Releases connections and threads, if any. */
    @Override
    default void close() {
    }
}
