package dev.ratelimit;

/**
 * What a shared store (Redis) does when it cannot decide: unreachable, timed out, or its circuit
 * breaker open. Never an exception to the caller.
 */
public enum FailureMode {
    /** Allow the request without counting it ({@link Source#FAIL_OPEN}); logged once per outage. */
    FAIL_OPEN,
    /**
     * Deny with {@link Verdict#STORE_UNAVAILABLE} ({@link Source#FAIL_CLOSED}); the servlet filter
     * answers 503 with Retry-After, not 429.
     */
    FAIL_CLOSED,
    /**
     * Decide in this JVM's memory ({@link Source#LOCAL_FALLBACK}) with the limit scaled by a
     * configured share, e.g. one over the number of instances.
     */
    LOCAL_FALLBACK
}
