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
 * @param verdict          allowed, rejected, never passable, or store unavailable
 * @param source           who decided: the store, the denial cache, the local fallback, or a failure mode
 * @param policy           the policy these numbers describe
 * @param limit            that policy's {@link Policy#limit()}
 * @param remaining        unit-cost requests that would pass right after this decision
 * @param resetAfterMicros µs until that policy's quota is fully back (0 when it already is)
 * @param retryAfterMicros 0 when allowed; otherwise the exact µs until this same request would pass,
 *                         or {@link #NEVER} when it never can
 */
public record Decision(Verdict verdict, Source source, Policy policy, long limit, long remaining,
                       long resetAfterMicros, long retryAfterMicros) {
    /** {@link #retryAfterMicros()} of a request that can never pass. */
    public static final long NEVER = -1;

    /** Whether the request passes. */
    public boolean allowed() {
        return verdict == Verdict.ALLOWED;
    }

    /** The time until the quota is fully back. */
    public Duration resetAfter() {
        return Durations.ofMicros(resetAfterMicros);
    }

    /** The exact wait until this same request would pass: zero when allowed, empty when it never can. */
    public Optional<Duration> retryAfter() {
        return retryAfterMicros == NEVER ? Optional.empty() : Optional.of(Durations.ofMicros(retryAfterMicros));
    }
}
