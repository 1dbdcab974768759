package dev.ratelimit;

/**
 * Hears what the limiter does: each decision (from the servlet filter, with its tier and endpoint),
 * each request the filter could not decide, store errors, store latency and changes of store health.
 * Every method has an empty default, and callers check {@link #NONE} before building anything to
 * pass, so an unused listener costs nothing.
 *
 * <p>Store events come from the Redis store (the in-memory store cannot fail), decisions from the
 * filter; give the same listener to both. The health changes tell an outage's course:
 * {@code UP -> DEGRADED} the store failed and the failure mode (e.g. the local fallback) decides,
 * {@code DEGRADED -> CIRCUIT_OPEN} the circuit breaker opened, {@code -> UP} the store answered
 * again (circuit closed, fallback left).
 *
 * <p>Implementations must be thread-safe, fast and must not throw; an exception (a checked one too,
 * which a listener in Kotlin or Groovy throws undeclared) or a {@link LinkageError} (a class missing
 * or of another version) thrown from a listener is caught and dropped by the caller, and changes no
 * decision.
 */
public interface RateLimitListener {
    /** The listener that listens to nothing. */
    RateLimitListener NONE = new RateLimitListener() {
    };

    /**
     * The filter bound {@code limit} to requests of {@code tier} to {@code endpoint}: called once for
     * each, when the filter is built, before any request. A listener that keeps meters per tier,
     * endpoint and algorithm creates them here at zero, so that a metrics backend that counts only
     * the growth between two scrapes (Prometheus' {@code rate} and {@code increase}) counts the first
     * decisions too, not only those after the meter first appeared.
     *
     * @param tier     the tier's name
     * @param endpoint the endpoint's name
     * @param limit    the limit the filter enforces for them
     */
    default void onLimitBound(String tier, String endpoint, Limit limit) {
    }

    /**
     * A request was decided.
     *
     * @param event the decision and what it was about
     */
    default void onDecision(DecisionEvent event) {
    }

    /**
     * The filter answered a request it limits without a decision: {@code passedOn} true when the request
     * went on to the application (shadow mode, or the failure mode let it through), false when the
     * filter answered it (a 400 for {@link Undecided#INVALID_CLIENT}, a 503 for a {@link Undecided#FAILURE}
     * when failing closed).
     *
     * @param reason   why there was no decision
     * @param passedOn whether the request went on to the application
     */
    default void onUndecided(Undecided reason, boolean passedOn) {
    }

    /**
     * A store call took {@code micros} microseconds ({@code ok} false if it failed). A call the Redis
     * store sends once more on a fresh connection after a broken one (as after a Redis restart) is one
     * call, timed over both attempts, and failed only if the second attempt fails too.
     *
     * @param micros how long the call took, in µs
     * @param ok     whether it succeeded
     */
    default void onStoreCall(long micros, boolean ok) {
    }

    /**
     * A store call failed (its second attempt too, if it was sent again); the decision followed the failure mode.
     *
     * @param error what the call threw
     */
    default void onStoreError(Throwable error) {
    }

    /**
     * The store's health changed, e.g. from {@code UP} to {@code CIRCUIT_OPEN}.
     *
     * @param previous the health before
     * @param current  the health now
     */
    default void onHealthChange(StoreHealth previous, StoreHealth current) {
    }
}
