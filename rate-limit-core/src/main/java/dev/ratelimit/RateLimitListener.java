package dev.ratelimit;

/**
 * Hears what the limiter does: each decision (from the servlet filter, with its tier and endpoint),
 * store errors, store latency and changes of store health. Every method has an empty default, and
 * callers check {@link #NONE} before building anything to pass, so an unused listener costs nothing.
 *
 * <p>Store events come from the Redis store (the in-memory store cannot fail), decisions from the
 * filter; give the same listener to both. The health changes tell an outage's course:
 * {@code UP -> DEGRADED} the store failed and the failure mode (e.g. the local fallback) decides,
 * {@code DEGRADED -> CIRCUIT_OPEN} the circuit breaker opened, {@code -> UP} the store answered
 * again (circuit closed, fallback left).
 *
 * <p>Implementations must be thread-safe, fast and must not throw; an exception or a
 * {@link LinkageError} (a class missing or of another version) thrown from a listener is caught and
 * dropped by the caller, and changes no decision.
 */
public interface RateLimitListener {
    /** The listener that listens to nothing. */
    RateLimitListener NONE = new RateLimitListener() {
    };

    /** A request was decided. */
    default void onDecision(DecisionEvent event) {
    }

    /** A store call took {@code micros} microseconds ({@code ok} false if it failed). */
    default void onStoreCall(long micros, boolean ok) {
    }

    /** A store call failed; the decision followed the failure mode. */
    default void onStoreError(Throwable error) {
    }

    /** The store's health changed, e.g. from {@code UP} to {@code CIRCUIT_OPEN}. */
    default void onHealthChange(StoreHealth previous, StoreHealth current) {
    }
}
