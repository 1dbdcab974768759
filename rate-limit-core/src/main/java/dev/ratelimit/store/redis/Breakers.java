package dev.ratelimit.store.redis;

import dev.ratelimit.Clock;
import dev.ratelimit.StoreHealth;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The store's circuit breakers. On a Redis Cluster the store created, one per master, found by the
 * hash slot of a decision's keys: a dead master opens only its own breaker, and the clients of the
 * other masters keep deciding on Redis. A call that failed on another node than the slot's owner (a
 * master importing the slot, reached by ASK) is that node's failure ({@link #forNode}). One shared
 * breaker for everything else: a single node, Sentinel, a cluster whose slot map is not known yet, or
 * a cluster client passed in by the caller.
 *
 * <p>The store's health is the worst of the breakers (UP, then DEGRADED, then CIRCUIT_OPEN),
 * reported as one sequence of changes ({@code UP -> DEGRADED -> CIRCUIT_OPEN -> UP}) however many
 * masters fail. A breaker that is not UP but that no decision has needed for
 * {@link #FORGET_AFTER_MICROS} no longer counts and is forgotten: its master lost its slots in a
 * failover, so no decision will probe it again.
 *
 * <p>A failed connection check ({@link #onCheck}) makes the store DEGRADED while every breaker is UP,
 * until a call or a check succeeds: a store that could not reach Redis at start-up says so before its
 * first decision. It counts towards no breaker: decisions still call Redis.
 */
final class Breakers {
    /** How long a failing breaker that nothing asks for still counts towards the store's health. */
    static final long FORGET_AFTER_MICROS = 60_000_000L;

    private final int threshold;
    private final long openMicros;
    private final Clock clock;
    private final Function<String, Object> nodeOfKey;
    private final CircuitBreaker.Transitions store;
    private final CircuitBreaker shared;
    private final ConcurrentHashMap<Object, CircuitBreaker> byNode = new ConcurrentHashMap<>();
    private volatile StoreHealth health = StoreHealth.UP;
    /** The last connection check failed and no call or check has succeeded since. */
    private volatile boolean checkFailed;
    /** The earliest instant a failing breaker may be forgotten: until then a success changes nothing here. */
    private volatile long nextForgetMicros = Long.MAX_VALUE;

    /**
     * @param nodeOfKey the Cluster master owning a key's slot (any value with equals), or null to use
     *                  the shared breaker; must be cheap and must not call Redis
     * @param store     told of every change of the store's health
     */
    Breakers(int threshold, long openMicros, Clock clock, Function<String, Object> nodeOfKey, CircuitBreaker.Transitions store) {
        this.threshold = threshold;
        this.openMicros = openMicros;
        this.clock = clock;
        this.nodeOfKey = nodeOfKey;
        this.store = store;
        this.shared = newBreaker();
    }

    /** The breaker that guards calls for {@code key}; never throws. */
    CircuitBreaker forKey(String key) {
        Object node;
        try {
            node = nodeOfKey.apply(key);
        } catch (RuntimeException e) {
            node = null; // no slot map to ask: the shared breaker
        }
        return forNode(node);
    }

    /** The breaker of Cluster master {@code node} (as {@code nodeOfKey} names it); the shared one for null. */
    CircuitBreaker forNode(Object node) {
        if (node == null) {
            return shared;
        }
        CircuitBreaker breaker = byNode.get(node);
        return breaker != null ? breaker : byNode.computeIfAbsent(node, n -> newBreaker());
    }

    /** The breaker of keys with no known master (a single node's only breaker). */
    CircuitBreaker shared() {
        return shared;
    }

    /** The worst health of the breakers that count. */
    StoreHealth health() {
        return health;
    }

    /** Reports a successful call through {@code breaker}. */
    void onSuccess(CircuitBreaker breaker) {
        breaker.onSuccess();
        if (health != StoreHealth.UP && (checkFailed || clock.nowMicros() >= nextForgetMicros)) {
            // Redis answered, whatever a connection check said before. And the breaker keeping the
            // store's health down may be one nothing needs any more: not looked at before it may be,
            // else while a master is down, the others' successes would all queue for this lock.
            checkFailed = false;
            update(null);
        }
    }

    /** Reports the outcome of a connection check: {@code failure} null when Redis answered it. */
    void onCheck(Throwable failure) {
        boolean failed = failure != null;
        if (checkFailed != failed) {
            checkFailed = failed;
            update(failure);
        }
    }

    /** Reports a failed call through {@code breaker}. */
    void onFailure(CircuitBreaker breaker, long now, Throwable cause) {
        breaker.onFailure(now, cause);
        countAgain(breaker, cause);
    }

    /** Reports a call {@code breaker} refused (it is open): a decision needed it. */
    void onRefused(CircuitBreaker breaker) {
        countAgain(breaker, null);
    }

    /**
     * A failing breaker that had stopped counting and is needed again without changing state (the
     * shared one is kept when forgotten, not replaced; it fails OPEN to OPEN, or is still open) counts
     * again: no transition says so. It is looked at whenever it is worse than the store's health, not
     * only when the store is UP: an open one counts again while another master keeps the store DEGRADED.
     */
    private void countAgain(CircuitBreaker breaker, Throwable cause) {
        if (breaker.health().compareTo(health) > 0) {
            update(cause);
        }
    }

    private CircuitBreaker newBreaker() {
        return new CircuitBreaker(threshold, openMicros, (previous, current, cause) -> update(cause));
    }

    private synchronized void update(Throwable cause) {
        long forgetBefore = clock.nowMicros() - FORGET_AFTER_MICROS;
        StoreHealth worst = counted(shared, forgetBefore) ? shared.health() : StoreHealth.UP;
        long nextForget = forgetAt(shared, forgetBefore);
        for (Map.Entry<Object, CircuitBreaker> e : byNode.entrySet()) {
            CircuitBreaker breaker = e.getValue();
            if (!counted(breaker, forgetBefore)) {
                byNode.remove(e.getKey(), breaker);
                continue;
            }
            if (breaker.health().compareTo(worst) > 0) {
                worst = breaker.health();
            }
            nextForget = Math.min(nextForget, forgetAt(breaker, forgetBefore));
        }
        nextForgetMicros = nextForget;
        if (checkFailed && worst == StoreHealth.UP) {
            worst = StoreHealth.DEGRADED;
        }
        StoreHealth previous = health;
        if (worst == previous) {
            return;
        }
        health = worst;
        // Told in order, under this lock: a listener never sees the changes of two breakers interleaved.
        if (previous == StoreHealth.UP && worst == StoreHealth.CIRCUIT_OPEN) {
            store.changed(StoreHealth.UP, StoreHealth.DEGRADED, cause);
            store.changed(StoreHealth.DEGRADED, StoreHealth.CIRCUIT_OPEN, cause);
        } else {
            store.changed(previous, worst, cause);
        }
    }

    /** When a counted failing breaker stops counting unless a decision needs it again; never for one that is UP. */
    private static long forgetAt(CircuitBreaker breaker, long forgetBefore) {
        return breaker.health() == StoreHealth.UP || !counted(breaker, forgetBefore) ? Long.MAX_VALUE
                : breaker.lastNeededMicros() + FORGET_AFTER_MICROS;
    }

    private static boolean counted(CircuitBreaker breaker, long forgetBefore) {
        return breaker.health() == StoreHealth.UP || breaker.lastNeededMicros() > forgetBefore;
    }
}
