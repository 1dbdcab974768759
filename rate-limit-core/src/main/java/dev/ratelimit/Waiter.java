package dev.ratelimit;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Waits for quota instead of refusing, for code that throttles its own work: a batch job, a queue
 * consumer, a client of a partner API (a request handler should refuse instead, with a 429). Each
 * attempt is one {@link RateLimiter#tryAcquire}; between attempts it sleeps the refusal's
 * {@link Decision#retryAfter()}, so it never spins, and it stops, returning the refusal, as soon as
 * the next wait would end more than {@code maxWait} after the call began. A request that can never
 * pass ({@link Verdict#COST_EXCEEDS_LIMIT}) is returned at its first attempt: at once, unless others
 * were already waiting on its key (see below).
 *
 * <pre>{@code
 * Waiter waiter = Waiter.system();
 * Decision d = waiter.tryAcquire(partnerApi, "customer-42", Duration.ofSeconds(30));
 * if (d.allowed()) { callThePartner(); } else { requeue(); }   // its wait would end after 30 s, it can never pass, or the store is unavailable
 * }</pre>
 *
 * <p>Threads that must wait on one key of one limiter, through one waiter, take turns in the order
 * they came, whatever their cost. A call attempts at once while nobody waits on the key (so calls that
 * find quota never queue), and joins the key's line when refused or when others are already waiting.
 * The thread at the head sleeps and attempts; those behind it wait without calling the store, and each
 * takes its turn when the one before it is served or gives up. Under contention a permit so costs
 * about two store calls (a Redis round trip each): the refusal that tells the wait, and the attempt
 * after it. A thread's {@code maxWait} includes its time in line, measured in real time (by the JVM,
 * not the waiter's {@link Clock}); if its turn has not come by then, it makes one attempt out of turn
 * and returns that decision, as does a call with {@code maxWait} zero while others wait. The line is
 * the waiter's own: share one waiter ({@link #system()} makes a new one each call). Callers that take
 * from the limiter without it, and other instances sharing a Redis store, do not wait in its line.
 * While a Redis store is unavailable and fails closed, the wait is its hint (the circuit breaker's
 * open period).
 *
 * <p>The calling thread blocks: never call it on an event loop. Thread-safe: one waiter serves every
 * thread.
 */
public final class Waiter {
    /** How a waiter sleeps: {@link #system()} sleeps the thread; a test's advances its {@link ManualClock}. */
    @FunctionalInterface
    public interface Sleeper {
        /**
         * Sleeps for {@code time}.
         *
         * @param time a positive duration
         * @throws InterruptedException if the sleep is interrupted
         */
        void sleep(Duration time) throws InterruptedException;
    }

    private final Clock clock;
    private final Sleeper sleeper;
    private final WaitLines lines = new WaitLines();

    private Waiter(Clock clock, Sleeper sleeper) {
        this.clock = clock;
        this.sleeper = sleeper;
    }

    /**
     * A new waiter that reads {@link Clock#system()} and sleeps the calling thread.
     *
     * @return the waiter, to share between threads (its lines are its own)
     */
    public static Waiter system() {
        return new Waiter(Clock.system(), time -> TimeUnit.NANOSECONDS.sleep(time.toNanos()));
    }

    /**
     * A waiter on {@code clock} that sleeps with {@code sleeper}; for tests, with a {@link ManualClock}:
     * {@code Waiter.of(clock, clock::advance)}.
     *
     * @param clock   where deadlines are read
     * @param sleeper how the waiter sleeps between attempts
     * @return the waiter
     * @throws InvalidConfigurationException when either is null
     */
    public static Waiter of(Clock clock, Sleeper sleeper) {
        if (clock == null) {
            throw new InvalidConfigurationException("clock", "must not be null");
        }
        if (sleeper == null) {
            throw new InvalidConfigurationException("sleeper", "must not be null");
        }
        return new Waiter(clock, sleeper);
    }

    /**
     * {@link #tryAcquire(RateLimiter, String, long, Duration)} with cost 1.
     *
     * @param limiter the limit to take from
     * @param key     the client's key
     * @param maxWait how long the call may wait, at most
     * @return the decision that allowed the request, or the last refusal
     * @throws InterruptedException as {@link #tryAcquire(RateLimiter, String, long, Duration)}
     */
    public Decision tryAcquire(RateLimiter limiter, String key, Duration maxWait) throws InterruptedException {
        return tryAcquire(limiter, key, 1, maxWait);
    }

    /**
     * Takes {@code cost} from the key's quota, waiting up to {@code maxWait} for it, in turn with the
     * other threads waiting through this waiter on the same key and limiter. The call may end a little
     * after {@code maxWait}: by the last attempt's store call and the sleep's overshoot.
     *
     * @param limiter the limit to take from
     * @param key     the client's key
     * @param cost    the request's weight, {@code >= 1}
     * @param maxWait how long the call may wait, at most; zero for one attempt
     * @return the decision that allowed the request; else the last refusal, when the wait it asks
     *         for would end after {@code maxWait}, or at its first attempt when the request can never pass
     * @throws IllegalArgumentException if {@code maxWait} is negative, or as {@link RateLimiter#tryAcquire}
     *                                  (at the first attempt)
     * @throws NullPointerException     if {@code limiter} or {@code maxWait} is null
     * @throws InterruptedException     if the thread is interrupted before an attempt, while it sleeps or
     *                                  while it waits in line (the request took nothing)
     */
    public Decision tryAcquire(RateLimiter limiter, String key, long cost, Duration maxWait) throws InterruptedException {
        Objects.requireNonNull(limiter, "limiter");
        Objects.requireNonNull(maxWait, "maxWait");
        if (maxWait.isNegative()) {
            throw new IllegalArgumentException("maxWait must not be negative, was " + maxWait);
        }
        long start = clock.nowMicros();
        long maxWaitMicros;
        try {
            maxWaitMicros = Durations.toMicros(maxWait);
        } catch (ArithmeticException beyondALong) {
            maxWaitMicros = Long.MAX_VALUE; // about 292,000 years: as long as it takes
        }
        long deadline = saturatedAdd(start, maxWaitMicros);
        long retryAt = Long.MIN_VALUE;
        if (!lines.occupied(limiter, key)) {
            // Nobody waits on the key: an attempt at once, so that calls finding quota never queue,
            // and the line only for a refusal, which at its turn sleeps out the wait it was told.
            checkInterrupt(limiter);
            Decision first = limiter.tryAcquire(key, cost);
            long wait = waitAfter(first, deadline);
            if (wait < 0) {
                return first;
            }
            retryAt = clock.nowMicros() + wait;
        }
        checkInterrupt(limiter);
        WaitLines.Turn turn;
        try {
            turn = lines.await(limiter, key, deadline - clock.nowMicros());
        } catch (InterruptedException e) {
            throw interrupted(limiter);
        }
        if (turn == null) { // the line did not move in time: one attempt, out of turn, as with a maxWait of zero
            return attempts(limiter, key, cost, Long.MIN_VALUE);
        }
        try (turn) {
            long now = clock.nowMicros();
            if (retryAt > now) {
                sleeper.sleep(Durations.ofMicros(retryAt - now));
            }
            return attempts(limiter, key, cost, deadline);
        }
    }

    /** Attempts, sleeping each refusal's wait, until one is allowed or the next wait would end after {@code deadline}. */
    private Decision attempts(RateLimiter limiter, String key, long cost, long deadline) throws InterruptedException {
        while (true) {
            // As java.util.concurrent's timed waits: a cancelled job (Future.cancel(true), shutdownNow) stops
            // taking quota, even while quota is there and it would never sleep.
            checkInterrupt(limiter);
            Decision decision = limiter.tryAcquire(key, cost);
            long wait = waitAfter(decision, deadline);
            if (wait < 0) {
                return decision;
            }
            sleeper.sleep(Durations.ofMicros(wait));
        }
    }

    /**
     * The wait before trying again after {@code decision}, or -1 when it is the answer: allowed, never
     * passing, or asking for a wait that would end after {@code deadline}.
     */
    private long waitAfter(Decision decision, long deadline) {
        if (decision.allowed() || decision.retryAfterMicros() == Decision.NEVER) {
            return -1;
        }
        long wait = Math.max(1, decision.retryAfterMicros());
        return saturatedAdd(clock.nowMicros(), wait) > deadline ? -1 : wait;
    }

    private static void checkInterrupt(RateLimiter limiter) throws InterruptedException {
        if (Thread.interrupted()) {
            throw interrupted(limiter);
        }
    }

    private static InterruptedException interrupted(RateLimiter limiter) {
        return new InterruptedException("interrupted while waiting for quota of " + limiter.limit().name());
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }
}
