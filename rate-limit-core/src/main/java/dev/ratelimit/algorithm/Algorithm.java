package dev.ratelimit.algorithm;

import dev.ratelimit.Decision;
import dev.ratelimit.FixedWindow;
import dev.ratelimit.Gcra;
import dev.ratelimit.Policy;
import dev.ratelimit.SlidingWindowCounter;
import dev.ratelimit.SlidingWindowLog;
import dev.ratelimit.TokenBucket;

/**
 * The maths of one policy over one key's state, with no storage and no clock of its own: every
 * method receives the state and the current time ({@code now}, µs since the epoch). Internal to the
 * library (the in-memory store runs it; the Redis scripts mirror its formulas).
 *
 * <p>State is {@link #words()} longs at {@code s[o..]} and, for the sliding log, one object at
 * {@code logs[l]}. All-zero state (and a null log) means "fresh": a full quota. Reading methods never
 * change the state; only {@link #consume} does, and only after {@link #waitMicros} returned 0.
 * A clock that goes backwards never admits more than a clock that stood still: the token bucket and
 * the fixed window treat it as standing still; GCRA (which keeps only the theoretical arrival time),
 * the sliding window counter (only its windows) and the sliding log (which counts every remembered
 * request newer than the earlier time's window start) measure from the earlier time, so they are
 * stricter until the clock catches up, and their wait still holds.
 */
public interface Algorithm {

    /** {@link #waitMicros} of a cost that can never pass. */
    long NEVER = Decision.NEVER;

    /**
     * The algorithm for {@code policy}.
     *
     * @param policy one of the five policy types
     * @return a new algorithm enforcing it
     */
    static Algorithm of(Policy policy) {
        if (policy instanceof TokenBucket p) {
            return new TokenBucketAlgorithm(p);
        } else if (policy instanceof FixedWindow p) {
            return new FixedWindowAlgorithm(p);
        } else if (policy instanceof SlidingWindowLog p) {
            return new SlidingWindowLogAlgorithm(p);
        } else if (policy instanceof SlidingWindowCounter p) {
            return new SlidingWindowCounterAlgorithm(p);
        } else if (policy instanceof Gcra p) {
            return new GcraAlgorithm(p);
        }
        throw new IllegalArgumentException("policy: unknown type " + policy.getClass().getName());
    }

    /**
     * The policy this algorithm enforces.
     *
     * @return the policy
     */
    Policy policy();

    /**
     * How many longs of state a key needs.
     *
     * @return the number of longs
     */
    int words();

    /**
     * Whether a key also needs a log object (only the sliding window log).
     *
     * @return true if it keeps a log
     */
    default boolean keepsLog() {
        return false;
    }

    /**
     * Rewrites the state as of {@code now} without changing what it means (a refill folded in, a
     * window rolled over), so the other methods need not recompute it. Optional: the default does
     * nothing, and every method gives the same answers with or without it.
     *
     * @param s    the states array
     * @param o    where this policy's state starts in {@code s}
     * @param logs the logs array
     * @param l    this policy's log index in {@code logs}
     * @param now  the current time, µs since the epoch
     */
    default void refresh(long[] s, int o, Object[] logs, int l, long now) {
    }

    /**
     * How long a request of {@code cost} must wait.
     *
     * @param s    the states array
     * @param o    where this policy's state starts in {@code s}
     * @param logs the logs array
     * @param l    this policy's log index in {@code logs}
     * @param now  the current time, µs since the epoch
     * @param cost the request's weight, {@code >= 1}
     * @return 0 if {@code cost} may pass now; else the exact µs until it may; {@link #NEVER} if it never may
     */
    long waitMicros(long[] s, int o, Object[] logs, int l, long now, long cost);

    /**
     * Takes {@code cost}; only call after {@link #waitMicros} returned 0 for the same arguments.
     *
     * @param s    the states array
     * @param o    where this policy's state starts in {@code s}
     * @param logs the logs array
     * @param l    this policy's log index in {@code logs}
     * @param now  the current time, µs since the epoch
     * @param cost the request's weight, {@code >= 1}
     */
    void consume(long[] s, int o, Object[] logs, int l, long now, long cost);

    /**
     * Unit-cost requests that would pass now.
     *
     * @param s    the states array
     * @param o    where this policy's state starts in {@code s}
     * @param logs the logs array
     * @param l    this policy's log index in {@code logs}
     * @param now  the current time, µs since the epoch
     * @return the count, {@code >= 0}
     */
    long remaining(long[] s, int o, Object[] logs, int l, long now);

    /**
     * How long until the quota is fully back.
     *
     * @param s    the states array
     * @param o    where this policy's state starts in {@code s}
     * @param logs the logs array
     * @param l    this policy's log index in {@code logs}
     * @param now  the current time, µs since the epoch
     * @return µs until then; 0 if it is
     */
    long resetAfterMicros(long[] s, int o, Object[] logs, int l, long now);

    /**
     * The instant (µs since the epoch) from which this state means exactly what a fresh state means,
     * so it can be forgotten.
     *
     * @param s    the states array
     * @param o    where this policy's state starts in {@code s}
     * @param logs the logs array
     * @param l    this policy's log index in {@code logs}
     * @return that instant; 0 for a state that is already fresh
     */
    long forgetAtMicros(long[] s, int o, Object[] logs, int l);
}
