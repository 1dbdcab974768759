package dev.ratelimit.store.redis;

import dev.ratelimit.Clock;
import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import dev.ratelimit.Verdict;

import java.util.List;
import java.util.function.Supplier;

/**
 * One limit on Redis. A decision is, in order: the denial cache (no Redis call while a client is
 * known to be denied), the circuit breaker (no Redis call while it is open; on Cluster, the breaker of
 * the master that holds the client's keys), one script call
 * (sent again on a fresh connection if it failed fast, as a connection broken by a Redis restart
 * does, at most twice; never after a timeout), and, if that fails or is not made, the failure mode. Nothing but {@link IllegalArgumentException} for a
 * null key or a cost below 1 leaves {@link #tryAcquire}.
 */
final class RedisRateLimiter implements RateLimiter {
    /** The most times one decision's call is sent: the call, and two more after connections it found broken. */
    private static final int SENDS = 3;
    private final ScriptLimit script;
    private final RedisStore.Settings settings;
    private final DenialCache denials;
    private final Limit share;
    private final Supplier<RateLimiter> fallback;
    private final Policy first;

    /**
     * @param share    the limit the local fallback enforces (this instance's share of {@code limit})
     * @param fallback the local fallback's limiter of {@code share}, created when first needed
     */
    RedisRateLimiter(Limit limit, Limit share, RedisStore.Settings settings, Supplier<RateLimiter> fallback) {
        this.script = new ScriptLimit(settings.keyPrefix(), limit, settings.library());
        this.settings = settings;
        this.share = share;
        this.fallback = fallback;
        long smallest = Long.MAX_VALUE;
        for (Policy p : limit.policies()) {
            smallest = Math.min(smallest, p.limit());
        }
        this.denials = settings.denialCache() ? new DenialCache(smallest) : null;
        this.first = limit.policies().get(0);
    }

    @Override
    public Limit limit() {
        return script.limit();
    }

    /** The local fallback's decisions describe this instance's share; every other source, the limit. */
    @Override
    public Limit limitFor(Source source) {
        return source == Source.LOCAL_FALLBACK ? share : limit();
    }

    @Override
    public Decision tryAcquire(String key, long cost) {
        if (cost < 1) {
            throw new IllegalArgumentException("cost must be >= 1, was " + cost);
        }
        if (key == null) {
            throw new IllegalArgumentException("key must not be null");
        }
        String client = settings.clientHash().of(key);
        Clock clock = settings.clock();
        long sentAt = clock.nowMicros();
        if (settings.connections().isClosed()) {
            // A use after close(): the application's shutdown order, not an outage. No call, and
            // nothing for the breakers, health or the listener's store metrics.
            settings.outages().usedAfterClose();
            return whenUnavailable(settings.breakers().shared(), client, cost, sentAt);
        }
        List<String> keys;
        CircuitBreaker breaker;
        try {
            if (denials != null) {
                Decision cached = denials.lookup(client, cost, sentAt);
                if (cached != null) {
                    return cached;
                }
            }
            keys = script.keys(client);
            breaker = settings.breakers().forKey(keys.get(0));
            if (!breaker.allowCall(sentAt)) {
                settings.breakers().onRefused(breaker);
                return whenUnavailable(breaker, client, cost, sentAt);
            }
        } catch (RuntimeException unexpected) {
            return whenUnavailable(settings.breakers().shared(), client, cost, sentAt);
        }
        long[] reply;
        long calledAt = sentAt; // when the send that Redis answered was made: the last, if there were more
        try {
            reply = call(keys, cost, sentAt);
        } catch (RuntimeException | LinkageError e) {
            // A LinkageError too: a Jedis of another version fails every call, like a failing Redis.
            long failedAt = clock.nowMicros();
            if (CallFailure.isCancellation(e)) {
                return cancelled(breaker, client, cost, failedAt);
            }
            if (!(CallFailure.sendsAgain(e) || CallFailure.reachedAReplica(e))
                    || !settings.connections().hasClient() || settings.connections().isClosed()) {
                failed(breaker, keys.get(0), e, failedAt - sentAt, sentAt, failedAt);
                return whenUnavailable(breaker, client, cost, failedAt);
            }
            // Failed fast, not by a timeout, on a client that exists: most likely a pooled connection
            // that died with a Redis restart, or one that still leads to a primary demoted by a
            // failover behind one endpoint. Drop the idle ones and try again on a fresh connection.
            // (A client that could not be created is not tried again: its failure may hide a timeout,
            // as Jedis' "All sentinels down" does.)
            long[] lastSent = new long[1];
            try {
                reply = sendAgain(keys, cost, sentAt, e, lastSent);
                calledAt = lastSent[0];
            } catch (RuntimeException | LinkageError again) {
                failedAt = clock.nowMicros();
                if (CallFailure.isCancellation(again)) {
                    return cancelled(breaker, client, cost, failedAt);
                }
                failed(breaker, keys.get(0), again, failedAt - sentAt, lastSent[0], failedAt);
                return whenUnavailable(breaker, client, cost, failedAt);
            } catch (Error fatal) {
                throw failedFatally(breaker, fatal, sentAt);
            }
        } catch (Error fatal) {
            throw failedFatally(breaker, fatal, sentAt);
        }
        try {
            settings.breakers().onSuccess(breaker, calledAt);
            if (settings.listener() != RateLimitListener.NONE) {
                settings.listener().onStoreCall(clock.nowMicros() - sentAt, true);
            }
        } catch (Exception | LinkageError listenerFailed) {
            // a listener must not change the decision (a LinkageError: a missing or mismatched metrics library;
            // any Exception: a listener in Kotlin or Groovy throws checked ones undeclared)
        }
        Decision decision = toDecision(reply);
        if (denials != null) {
            if (decision.verdict() == Verdict.REJECTED) {
                denials.remember(client, cost, sentAt, decision);
            } else if (decision.verdict() == Verdict.ALLOWED) {
                denials.forget(client);
            }
        }
        return decision;
    }

    /**
     * Sends a call that failed fast once more, after dropping the idle pooled connections. A connection
     * another call was using when Redis closed them all can come back to the pool after that, and be the
     * one this send takes: a send that breaks on an open connection so is made once more (at most
     * {@link #SENDS} in all). A connection refused is not: Redis is not there.
     */
    private long[] sendAgain(List<String> keys, long cost, long sentAt, Throwable failed, long[] lastSent) {
        Throwable last = failed;
        for (int send = 2; ; send++) {
            lastSent[0] = settings.clock().nowMicros();
            settings.connections().dropIdleConnections(last, lastSent[0]);
            try {
                return call(keys, cost, sentAt);
            } catch (RuntimeException again) {
                if (send == SENDS || !CallFailure.brokeAnOpenConnection(again) || settings.connections().isClosed()) {
                    throw again;
                }
                last = again;
            }
        }
    }

    /**
     * This thread was interrupted during its own call: a virtual thread's interrupt closes its socket,
     * and any thread's interrupts a wait for a pooled connection. The caller was cancelled; Redis did
     * not fail: nothing is sent again, no failure is counted, no connection dropped, and the interrupt
     * status is kept for the caller to see.
     */
    private Decision cancelled(CircuitBreaker breaker, String client, long cost, long now) {
        breaker.callWentElsewhere(); // neither success nor failure: a probe this was lets the next one through
        if (!settings.connections().isClosed()) {
            // Closed, the interrupt was most likely the store's: commons-pool interrupts the threads
            // waiting for a connection of a pool it closes, and a request thread must not be left
            // interrupted by it. (A caller cancelled at that very moment loses its interrupt.)
            Thread.currentThread().interrupt();
        }
        return whenUnavailable(breaker, client, cost, now);
    }

    private long[] call(List<String> keys, long cost, long sentAt) {
        String now = settings.timeFromClock() ? Long.toString(sentAt) : ScriptLimit.REDIS_TIME;
        settings.connections().forgetNodeTried();
        return script.script().run(settings.calls(), settings.connections().client(), keys,
                script.args(now, cost, settings.ttlSlackMillis()));
    }

    private Decision toDecision(long[] reply) {
        Verdict verdict = switch ((int) reply[0]) {
            case 0 -> Verdict.ALLOWED;
            case 1 -> Verdict.REJECTED;
            default -> Verdict.COST_EXCEEDS_LIMIT;
        };
        Policy policy = script.limit().policies().get((int) reply[1]);
        return new Decision(verdict, Source.STORE, policy, policy.limit(), reply[2], reply[3], reply[4]);
    }

    /**
     * Any other Error (a stack overflow, out of memory) propagates, but is a failed call first: the
     * breaker's one probe would otherwise stay taken, and the store never call Redis again.
     */
    private Error failedFatally(CircuitBreaker breaker, Error fatal, long sentAt) {
        try {
            long failedAt = settings.clock().nowMicros();
            failed(breaker, null, fatal, failedAt - sentAt, sentAt, failedAt);
        } catch (RuntimeException | Error ignored) {
            // the Error is what the caller must see
        }
        return fatal;
    }

    /**
     * Reports a failed call: to the breakers (as sent at {@code lastSentAt}, its last send), the outage
     * log and the listener ({@code micros} over all its sends).
     */
    private void failed(CircuitBreaker breaker, String keys0, Throwable e, long micros, long lastSentAt, long now) {
        try {
            if (settings.connections().isClosed()) {
                // The store was closed while this call was under way (its pool or client refuses, its
                // connection was closed under it): the application's shutdown, not an outage. Nothing for the
                // breakers, health or the listener's store metrics, as for a call made after close().
                breaker.callWentElsewhere();
                return;
            }
            boolean connectionFailure = CallFailure.isConnectionFailure(e);
            if (connectionFailure || CallFailure.reachedAReplica(e)) {
                settings.connections().dropIdleConnections(e, now);
            }
            if (CallFailure.isResharding(e)) {
                // TRYAGAIN: the master answered, a resharding is moving the keys' slot; not a failing Redis.
                // Told to the breaker that let the call through, whose probe (if it was one) this still is.
                settings.breakers().onSuccess(breaker, lastSentAt);
            } else {
                blame(breaker, keys0, connectionFailure, e, lastSentAt, now);
                if (!CallFailure.isPoolExhausted(e)) {
                    settings.outages().failed(e, now); // after blame: an outage this failure started says its cause
                }
            }
            if (connectionFailure) {
                settings.connections().renewSlotMapAfterFailure(now);
            }
            // Last: a listener that throws must not keep the store from the bookkeeping above.
            RateLimitListener listener = settings.listener();
            if (listener != RateLimitListener.NONE) {
                listener.onStoreCall(micros, false);
                listener.onStoreError(e);
            }
        } catch (Exception | LinkageError ignored) {
            // reporting a failure must not fail the request (a listener may throw a checked exception undeclared)
        }
    }

    /**
     * Counts a failed call against the breaker of the node it failed on. On a Cluster, that is the node
     * the call went to last: a master importing the keys' slot (reached by ASK) that died, not the
     * slot's owner, whose other clients keep deciding on Redis.
     */
    private void blame(CircuitBreaker breaker, String keys0, boolean connectionFailure, Throwable e, long sentAt, long now) {
        CircuitBreaker failing = breaker;
        if (keys0 != null && breaker == settings.breakers().shared()) {
            // Chosen before the cluster client (and its slot map) existed: the failure is the keys' master's.
            CircuitBreaker owner = settings.breakers().forKey(keys0);
            if (owner != breaker) {
                failing = owner;
                breaker.callWentElsewhere();
            }
        }
        Object tried = connectionFailure ? settings.connections().nodeTried() : null;
        if (tried != null) {
            failing = settings.breakers().forNode(tried);
            if (failing != breaker) {
                breaker.callWentElsewhere();
            }
        }
        if (CallFailure.isPoolExhausted(e)) {
            // No pooled connection came free within the read timeout: every one carries a call of
            // this instance's own (calls one by one, more callers than poolSize). Those calls count
            // for themselves, should Redis fail them; counted too, a healthy Redis would open the breaker.
            breaker.callWentElsewhere();
        } else {
            settings.breakers().onFailure(failing, sentAt, now, e);
        }
    }

    /** The decision when Redis did not decide: the configured failure mode, with {@code breaker}'s retry hint. */
    private Decision whenUnavailable(CircuitBreaker breaker, String client, long cost, long now) {
        List<Policy> policies = script.limit().policies();
        for (int i = 0; i < policies.size(); i++) {
            if (cost > policies.get(i).limit()) {
                // Never passable whatever Redis holds: say so rather than "retry later", naming the policy
                // as this mode's other decisions do (the local fallback's share of it).
                Policy p = limitFor(modeSource()).policies().get(i);
                return new Decision(Verdict.COST_EXCEEDS_LIMIT, modeSource(), p, p.limit(), p.limit(), 0, Decision.NEVER);
            }
        }
        // "When Redis is asked again": never, for a closed store, so a Waiter returns its refusal at once.
        long hint = settings.connections().isClosed() ? Decision.NEVER : Math.max(1, breaker.retryHintMicros(now));
        return switch (settings.failureMode()) {
            case FAIL_OPEN -> new Decision(Verdict.ALLOWED, Source.FAIL_OPEN, first, first.limit(), first.limit(), 0, 0);
            case FAIL_CLOSED -> new Decision(Verdict.STORE_UNAVAILABLE, Source.FAIL_CLOSED, first, first.limit(), 0, 0, hint);
            case LOCAL_FALLBACK -> local(client, cost, hint);
        };
    }

    private Decision local(String client, long cost, long hint) {
        Decision d;
        try {
            d = fallback.get().tryAcquire(client, cost);
        } catch (RuntimeException e) {
            Policy p = share.policies().get(0);
            return new Decision(Verdict.STORE_UNAVAILABLE, Source.LOCAL_FALLBACK, p, p.limit(), 0, 0, hint);
        }
        if (d.verdict() == Verdict.COST_EXCEEDS_LIMIT) {
            // Only this instance's share is too small for the cost; it passes once Redis is back.
            return new Decision(Verdict.REJECTED, Source.LOCAL_FALLBACK, d.policy(), d.limit(), d.remaining(),
                    d.resetAfterMicros(), hint);
        }
        return new Decision(d.verdict(), Source.LOCAL_FALLBACK, d.policy(), d.limit(), d.remaining(),
                d.resetAfterMicros(), d.retryAfterMicros());
    }

    private Source modeSource() {
        return switch (settings.failureMode()) {
            case FAIL_OPEN -> Source.FAIL_OPEN;
            case FAIL_CLOSED -> Source.FAIL_CLOSED;
            case LOCAL_FALLBACK -> Source.LOCAL_FALLBACK;
        };
    }

    @Override
    public String toString() {
        return "RedisRateLimiter[" + script.limit().name() + ", failureMode=" + settings.failureMode() + "]";
    }
}
