package dev.ratelimit;

/** Who made a {@link Decision}. */
public enum Source {
    /** The configured store (in-memory, or Redis in one atomic script). */
    STORE,
    /** The Redis store's local denial cache: the key was already known to be denied until a later time. */
    DENIAL_CACHE,
    /** Redis was unavailable; decided in memory with the limit scaled to this instance's share. */
    LOCAL_FALLBACK,
    /** Redis was unavailable and the failure mode is fail-open: allowed without counting. */
    FAIL_OPEN,
    /** The store was unavailable and the failure mode is fail-closed. */
    FAIL_CLOSED
}
