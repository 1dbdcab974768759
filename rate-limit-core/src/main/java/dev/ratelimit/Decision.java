package dev.ratelimit;

import java.time.Duration;
import java.util.Optional;

/**
 * The answer to one request: whether it passes and everything a response needs to say about the
 * limit. The same object feeds the allow/deny branch and the rate-limit headers, so they cannot
 * disagree.
 *
 * <p>For a composite limit, the numbers describe one policy: on rejection the one that needs the
 * longest wait (the request passes only when that one does), otherwise the one closest to
 * rejecting (fewest remaining). {@code remaining} is always the fewest any policy has left: a
 * rejected cost of 5 may find 3 left in the policy with the longest wait and none in another.
 *
 * <p>The numbers describe the client's quota only when {@link #hasNumbers()}: a failure mode's
 * decision ({@link Source#FAIL_OPEN}, {@link Source#FAIL_CLOSED}) and a {@link Verdict#STORE_UNAVAILABLE}
 * one know nothing of it, and carry the policy's limit, 0 for reset and a retry hint instead.
 *
 * @param verdict          allowed, rejected, never passable, or store unavailable
 * @param source           who decided: the store, the denial cache, the local fallback, or a failure mode
 * @param policy           the policy these numbers describe
 * @param limit            that policy's {@link Policy#limit()}
 * @param remaining        unit-cost requests that would pass right after this decision
 * @param resetAfterMicros µs until that policy's quota is fully back (0 when it already is)
 * @param retryAfterMicros 0 when allowed; {@link #NEVER} when the request can never pass; otherwise the
 *                         exact µs until this same request would pass, except while Redis is unavailable
 *                         for a {@link Verdict#STORE_UNAVAILABLE} decision and for the local fallback's
 *                         refusal of a cost above this instance's share: then a hint, the µs until Redis
 *                         is asked again (the circuit breaker's open period, at least 1), or {@link #NEVER}
 *                         once the Redis store was closed
 */
public record Decision(Verdict verdict, Source source, Policy policy, long limit, long remaining,
                       long resetAfterMicros, long retryAfterMicros) {
    /** {@link #retryAfterMicros()} of a request that can never pass. */
    public static final long NEVER = -1;

    /**
     * Whether the request passes.
     *
     * @return true when the verdict is {@link Verdict#ALLOWED}
     */
    public boolean allowed() {
        return verdict == Verdict.ALLOWED;
    }

    /**
     * Whether {@link #limit()}, {@link #remaining()} and {@link #resetAfter()} describe the client's
     * quota: true for a decision of the store, its denial cache or its local fallback, false for a
     * failure mode's ({@link Source#FAIL_OPEN}, {@link Source#FAIL_CLOSED}) and a
     * {@link Verdict#STORE_UNAVAILABLE} one. The servlet filter sends rate-limit numbers only when true.
     *
     * @return whether the numbers describe the client's quota
     */
    public boolean hasNumbers() {
        return source != Source.FAIL_OPEN && source != Source.FAIL_CLOSED && verdict != Verdict.STORE_UNAVAILABLE;
    }

    /**
     * The time until the quota is fully back.
     *
     * @return {@link #resetAfterMicros()} as a duration
     */
    public Duration resetAfter() {
        return Durations.ofMicros(resetAfterMicros);
    }

    /**
     * The wait until this same request would pass: zero when allowed, empty when it never can; exact,
     * but for the hints of {@link #retryAfterMicros()} while Redis is unavailable.
     *
     * @return {@link #retryAfterMicros()} as a duration, or empty for {@link #NEVER}
     */
    public Optional<Duration> retryAfter() {
        return retryAfterMicros == NEVER ? Optional.empty() : Optional.of(Durations.ofMicros(retryAfterMicros));
    }
}
