package dev.ratelimit.bench.memory;

/**
 * A per-key rate limiter wired the way its users would wire it, behind the one call the benchmark
 * loop makes, so that every contender runs the same loop. Implementations are thread-safe.
 */
public interface Contender {

    /**
     * Decides one unit-cost request of {@code key}, including the key lookup, and returns what a
     * filter would read the answer (and, where the library offers them, the rate-limit headers)
     * from.
     */
    Object decide(String key);

    /** Whether {@code result}, returned by {@link #decide}, lets the request pass. */
    boolean allowed(Object result);

    /**
     * Brings {@code key} into the state the benchmark measures: tracked, and for bucket-like
     * contenders with part of the quota already spent, so it is never full (hence never forgotten)
     * and never empty during a run.
     */
    void prepare(String key);
}
