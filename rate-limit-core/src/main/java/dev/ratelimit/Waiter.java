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
 * pass ({@link Verdict#COST_EXCEEDS_LIMIT}) is returned at once.
 *
 * <pre>{@code
 * Waiter waiter = Waiter.system();
 * Decision d = waiter.tryAcquire(partnerApi, "customer-42", Duration.ofSeconds(30));
 * if (d.allowed()) { callThePartner(); } else { requeue(); }   // its wait would end after 30 s, it can never pass, or the store is unavailable
 * }</pre>
 *
 * <p>Waiters are not queued: threads waiting on one key wake when the quota they were told of is
 * back, one of them takes it and the others wait again, each attempt a store call (a Redis round
 * trip), so {@code maxWait} bounds each call but does not share the waits fairly: under contention
 * one thread may be refused at {@code maxWait} while others are served. While a Redis store is
 * unavailable and fails closed, the wait is its hint (the circuit breaker's open period); a closed
 * Redis store's refusal can never pass, and is returned at once.
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

    private Waiter(Clock clock, Sleeper sleeper) {
        this.clock = clock;
        this.sleeper = sleeper;
    }

    /**
     * A waiter that reads {@link Clock#system()} and sleeps the calling thread.
     *
     * @return the waiter, to share between threads
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
     * Takes {@code cost} from the key's quota, waiting up to {@code maxWait} for it. The call may end
     * a little after {@code maxWait}: by the last attempt's store call and the sleep's overshoot.
     *
     * @param limiter the limit to take from
     * @param key     the client's key
     * @param cost    the request's weight, {@code >= 1}
     * @param maxWait how long the call may wait, at most; zero for one attempt
     * @return the decision that allowed the request; else the last refusal, when the wait it asks
     *         for would end after {@code maxWait}, or at once when the request can never pass
     * @throws IllegalArgumentException if {@code maxWait} is negative, or as {@link RateLimiter#tryAcquire}
     * @throws NullPointerException     if {@code limiter} or {@code maxWait} is null
     * @throws InterruptedException     if the thread is interrupted before an attempt or while it sleeps (the
     *                                  request took nothing)
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
        while (true) {
            // As java.util.concurrent's timed waits: a cancelled job (Future.cancel(true), shutdownNow) stops
            // taking quota, even while quota is there and it would never sleep.
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while waiting for quota of " + limiter.limit().name());
            }
            Decision decision = limiter.tryAcquire(key, cost);
            if (decision.allowed() || decision.retryAfterMicros() == Decision.NEVER) {
                return decision;
            }
            long wait = Math.max(1, decision.retryAfterMicros());
            long now = clock.nowMicros();
            if (saturatedAdd(now, wait) > deadline) {
                return decision;
            }
            sleeper.sleep(Durations.ofMicros(wait));
        }
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }
}
