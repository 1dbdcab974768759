package dev.ratelimit;

/** The health of a store as reported to {@link RateLimitListener#onHealthChange}. */
public enum StoreHealth {
    /** Decisions are made by the store. */
    UP,
    /** The store is failing; decisions follow the configured failure mode (fail open, closed, or local fallback). */
    DEGRADED,
    /** The circuit breaker is open: the store is not called until the back-off period ends. */
    CIRCUIT_OPEN
}
