package dev.ratelimit.bench.memory;

/**
 * Where the key string of each decision comes from. Both are measured because they favour
 * different contenders: a pre-generated {@link String} caches its {@code hashCode()}, which
 * {@code ConcurrentHashMap} and Caffeine reuse for free, while our store hashes the characters itself
 * (it keeps only a seeded 56-bit hash of the key). A servlet filter builds a new key string for
 * every request, so neither side gets a cached hash there.
 */
public enum KeyMode {
    /** Key strings built once before the run (their hash codes cached after the first use). */
    PREGENERATED,
    /** {@code "apikey:" + rawKey} built for every decision, for every contender, as a filter does. */
    FRESH
}
