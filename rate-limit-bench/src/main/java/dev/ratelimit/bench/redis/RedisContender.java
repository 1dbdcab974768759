package dev.ratelimit.bench.redis;

/**
 * A rate limiter on Redis wired the way its users would wire it, behind the one call the benchmark
 * loop makes. Thread-safe; {@link #close} releases its connections.
 */
public interface RedisContender extends AutoCloseable {

    /** Decides one unit-cost request of {@code key} and returns what a filter would read the answer from. */
    Object decide(String key);

    /** Whether {@code result} lets the request pass and was decided by Redis (not by a failure mode). */
    boolean allowed(Object result);

    /** Makes {@code key} tracked, with half of a bucket-like quota spent so it never expires during a run. */
    void prepare(String key);

    @Override
    void close();
}
