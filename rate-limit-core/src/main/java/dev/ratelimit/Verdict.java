package dev.ratelimit;

/** What a {@link Decision} says about the request. */
public enum Verdict {
    /** The request passes; its cost was taken from every policy of the limit. */
    ALLOWED,
    /**
     * The request is over the limit now; it passes after {@link Decision#retryAfter()} (from the local
     * fallback, for a cost above this instance's share of the limit: once Redis decides again).
     */
    REJECTED,
    /**
     * The request costs more than the limit ever allows, so it can never pass: do not tell the
     * client to retry. {@link Decision#retryAfterMicros()} is {@link Decision#NEVER}.
     */
    COST_EXCEEDS_LIMIT,
    /**
     * The store could not decide (Redis down) and the failure mode is fail-closed, or the local
     * fallback failed too. {@link Decision#retryAfter()} is a hint: when Redis is asked again (empty
     * once the store was closed: never). The
     * servlet filter answers 503, not 429.
     */
    STORE_UNAVAILABLE
}
