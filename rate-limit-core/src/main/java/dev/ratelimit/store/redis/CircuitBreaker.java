package dev.ratelimit.store.redis;

import dev.ratelimit.StoreHealth;

import java.util.function.LongSupplier;

/**
 * Stops calling Redis while it is failing. After {@code threshold} consecutive failed calls the
 * circuit opens: for {@code openMicros} no call is made (decisions follow the failure mode at once,
 * instead of each waiting for a timeout). Then one call is let through as a probe; success closes
 * the circuit, failure opens it for another period. A call let through before the circuit opened
 * that fails while it is open (it was waiting out its timeout) is counted, but neither restarts the
 * open period nor frees the probe's place: only the probe's own outcome does. Likewise a success
 * of a call sent before the circuit opened does not close it (only the probe's success does), and a
 * success of a call sent before another that Redis refused already (a connection refused, reset or
 * closed) says nothing newer than that refusal (Redis shutting down answers the calls already sent,
 * then refuses the next): it neither brings the breaker back UP nor starts the count of consecutive
 * failures again. Calls are ordered by when they were sent; timeouts and error replies order nothing
 * (see {@link #stoppedAnswering}). The probe is known by its thread: a call is made and reported on
 * the thread that asked for it. Time is the store's local clock.
 *
 * <p>Health: {@code UP} while calls succeed, {@code DEGRADED} from the first failure,
 * {@code CIRCUIT_OPEN} while open (and during the probe), {@code UP} again on the first success that
 * counts (as above).
 * The fast path (health UP) reads one volatile field and takes no lock. While not UP, the breaker
 * remembers when a decision last needed it ({@link #lastNeededMicros()}), so that a breaker nothing
 * asks for any more (a Cluster master that lost its slots) can be told apart from a failing one.
 */
final class CircuitBreaker {

    /** Told of every health change, outside the breaker's lock. */
    interface Transitions {
        void changed(StoreHealth previous, StoreHealth current, Throwable cause);
    }

    private final int threshold;
    private final long openMicros;
    private final Transitions transitions;

    private volatile StoreHealth health = StoreHealth.UP;
    private volatile long lastNeeded;
    private int failures;
    /** When the latest-sent call that failed because Redis stopped answering was sent; guarded by this. */
    private long lastFailedSentAt = Long.MIN_VALUE;
    private long openUntil;
    private boolean probing;
    private Thread prober;

    CircuitBreaker(int threshold, long openMicros, Transitions transitions) {
        this.threshold = threshold;
        this.openMicros = openMicros;
        this.transitions = transitions;
    }

    StoreHealth health() {
        return health;
    }

    /** Whether a call may go to Redis at {@code now}; when it returns true the caller must report the outcome. */
    boolean allowCall(long now) {
        StoreHealth h = health;
        if (h == StoreHealth.UP) {
            return true;
        }
        lastNeeded = now;
        if (h != StoreHealth.CIRCUIT_OPEN) {
            return true;
        }
        synchronized (this) {
            if (health != StoreHealth.CIRCUIT_OPEN) {
                return true;
            }
            if (probing || stillOpen(now)) {
                return false;
            }
            probing = true;
            prober = Thread.currentThread();
            return true;
        }
    }

    /**
     * Reports a call sent at {@code sentAt} that Redis answered; {@code clock} is read, under the
     * breaker's lock, only when the breaker is not UP.
     */
    void onSuccess(long sentAt, LongSupplier clock) {
        if (health == StoreHealth.UP) {
            return;
        }
        StoreHealth previous;
        synchronized (this) {
            previous = health;
            boolean probe = probing && prober == Thread.currentThread();
            if (!probe && (previous == StoreHealth.CIRCUIT_OPEN
                    || sentAt < lastFailedSentAt && lastFailedSentAt <= clock.getAsLong())) {
                // Open: only the probe's answer closes it. Else sent before a call Redis refused: an answer
                // from before Redis stopped answering. (A clock reading earlier than that call's sending was
                // stepped back: the success counts.)
                return;
            }
            failures = 0;
            probing = false;
            prober = null;
            health = StoreHealth.UP;
        }
        if (previous != StoreHealth.UP) {
            transitions.changed(previous, StoreHealth.UP, null);
        }
    }

    /** Reports a call sent at {@code sentAt} that failed at {@code now}. */
    void onFailure(long sentAt, long now, Throwable cause) {
        StoreHealth previous;
        StoreHealth current;
        boolean refused = stoppedAnswering(cause); // a walk of its causes: outside the lock
        synchronized (this) {
            previous = health;
            lastNeeded = now;
            if (refused) {
                lastFailedSentAt = Math.max(lastFailedSentAt, sentAt);
            }
            failures = failures == Integer.MAX_VALUE ? failures : failures + 1;
            if (previous == StoreHealth.CIRCUIT_OPEN && !(probing && prober == Thread.currentThread())) {
                // A call sent before the circuit opened, failing late: the open period and the probe stand.
                return;
            }
            probing = false;
            prober = null;
            if (previous == StoreHealth.CIRCUIT_OPEN || failures >= threshold) {
                openUntil = now + openMicros;
                health = StoreHealth.CIRCUIT_OPEN;
            } else {
                health = StoreHealth.DEGRADED;
            }
            current = health;
        }
        if (previous == StoreHealth.UP && current == StoreHealth.CIRCUIT_OPEN) {
            transitions.changed(StoreHealth.UP, StoreHealth.DEGRADED, cause);
            transitions.changed(StoreHealth.DEGRADED, StoreHealth.CIRCUIT_OPEN, cause);
        } else if (previous != current) {
            transitions.changed(previous, current, cause);
        }
    }

    /**
     * Whether a failure says Redis stopped answering: a connection refused, reset or closed, as Redis
     * shutting down (or gone) refuses the calls sent after those it answered. Not a timeout (its call was
     * sent long before it is reported, while later calls may be answered), nor an error reply (Redis
     * answered): those must not make the successes of calls sent before them count for nothing, or a few
     * of them among many callers would open the breaker on a Redis that answers nearly every call.
     */
    private static boolean stoppedAnswering(Throwable cause) {
        return cause != null && CallFailure.isConnectionFailure(cause) && !CallFailure.isTimeout(cause);
    }

    /**
     * A call this breaker let through failed on another Redis node, whose breaker is told instead (a
     * Cluster call redirected during a resharding): this breaker stays as it was, and if the call was
     * its probe, lets the next one through.
     */
    void callWentElsewhere() {
        if (health == StoreHealth.CIRCUIT_OPEN) {
            synchronized (this) {
                if (prober == Thread.currentThread()) {
                    probing = false;
                    prober = null;
                }
            }
        }
    }

    /** When a decision last asked for this breaker or failed through it while it was not UP (µs, local clock). */
    long lastNeededMicros() {
        return lastNeeded;
    }

    /**
     * Whether the open period lasts beyond {@code now}; guarded by this. A reading a little earlier than
     * the moment the circuit opened ({@code openUntil - openMicros}) is a caller's that read the clock
     * before another call's failure opened it (under load, often by milliseconds): still open. One
     * earlier than that moment by more than a whole period was read on a clock stepped back: the period
     * is over rather than stretched further by the step.
     */
    private boolean stillOpen(long now) {
        return now < openUntil && openUntil - now <= 2 * openMicros;
    }

    /** A hint for clients told to come back later: the rest of the open period, else one period. */
    long retryHintMicros(long now) {
        if (health == StoreHealth.CIRCUIT_OPEN) {
            synchronized (this) {
                if (health == StoreHealth.CIRCUIT_OPEN && stillOpen(now)) {
                    return Math.min(openUntil - now, openMicros);
                }
            }
        }
        return openMicros;
    }
}
