package dev.ratelimit;

/**
 * Where per-key limit state lives: in this JVM ({@code MemoryStore}) or in Redis
 * ({@code RedisStore}). The one extension point between the algorithms and their storage; every
 * implementation passes the same contract test. Stores and their limiters are safe to share between
 * threads.
 */
public interface RateLimitStore extends AutoCloseable {

    /**
     * A limiter for {@code limit}. Binding an equal limit again returns a limiter with the same state
     * (the in-memory and Redis stores return the same one). Binding is not free, so bind once and
     * keep the limiter; a store keeps every limit bound to it for as long as the store itself is referenced
     * ({@link #close()} releases connections, not limits), so
     * bind one limit per distinct set of numbers, not one per client (a client is a key).
     *
     * <p>Limits of one name but other numbers: the in-memory store keeps their states apart; the
     * Redis store shares a key's state between them where it means the same (the same algorithm and
     * window or rate), so that a changed limit counts what clients already spent (see the README's
     * "Changing limits on a live system"). Two services sharing a Redis should not use one name and
     * key prefix for different limits.
     *
     * @param limit the limit to enforce
     * @return the limiter
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
