package dev.ratelimit.store.redis;

import dev.ratelimit.Clock;
import dev.ratelimit.StoreHealth;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

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
 * failover, so no decision will probe it again. A master's breaker is forgotten sooner, once no
 * decision has needed it for {@link #OWNERLESS_FORGET_AFTER_MICROS} and the slot map gives it no slot
 * (looked at, at most once a second, by a success while the store is not UP): then the store is UP
 * again as soon as its replica has taken over, not a minute later.
 *
 * <p>A failed connection check ({@link #onCheck}) makes the store DEGRADED while every breaker is UP,
 * until a call or a check succeeds: a store that could not reach Redis at start-up says so before its
 * first decision. It counts towards no breaker: decisions still call Redis.
 */
final class Breakers {
    /** How long a failing breaker that nothing asks for still counts towards the store's health. */
    static final long FORGET_AFTER_MICROS = 60_000_000L;
    /**
     * How long a failing master's breaker that nothing asks for, and that owns no slot, still counts:
     * long enough for a call already on its way to it to come back, short enough that the store is UP
     * again right after a failover; a master that gets slots by a resharding (reached by ASK) is
     * needed meanwhile, so never forgotten while it fails.
     */
    static final long OWNERLESS_FORGET_AFTER_MICROS = 2_000_000L;
    private static final long OWNERSHIP_CHECK_EVERY_MICROS = 1_000_000L;

    private final int threshold;
    private final long openMicros;
    private final Clock clock;
    /** The clock as a breaker reads it, made once: a success on the hot path allocates nothing. */
    private final LongSupplier now;
    private final Function<String, Object> nodeOfKey;
    private final Predicate<Object> ownsSlots;
    private final CircuitBreaker.Transitions store;
    private final CircuitBreaker shared;
    private final ConcurrentHashMap<Object, CircuitBreaker> byNode = new ConcurrentHashMap<>();
    /** The nodes whose breaker was made for a key they owned: only those may be forgotten for owning no slot. */
    private final Set<Object> slotOwners = ConcurrentHashMap.newKeySet();
    private volatile StoreHealth health = StoreHealth.UP;
    /** The last connection check failed and no call or check has succeeded since. */
    private volatile boolean checkFailed;
    /** The earliest instant a failing breaker may be forgotten: until then a success changes nothing here. */
    private volatile long nextForgetMicros = Long.MAX_VALUE;
    /** When a success next looks whether a failing master still owns slots: at most once a second. */
    private volatile long nextOwnershipCheckMicros = Long.MAX_VALUE;
    /** When the slot map was last read for that; guarded by this. */
    private long lastOwnershipCheckMicros = Long.MIN_VALUE;

    /**
     * @param nodeOfKey the Cluster master owning a key's slot (any value with equals), or null to use
     *                  the shared breaker; must be cheap and must not call Redis
     * @param ownsSlots whether a master ({@code nodeOfKey}'s value) owns a slot in the slot map as the
     *                  client last saw it; must not call Redis
     * @param store     told of every change of the store's health
     */
    Breakers(int threshold, long openMicros, Clock clock, Function<String, Object> nodeOfKey, Predicate<Object> ownsSlots,
             CircuitBreaker.Transitions store) {
        this.threshold = threshold;
        this.openMicros = openMicros;
        this.clock = clock;
        this.now = clock::nowMicros;
        this.nodeOfKey = nodeOfKey;
        this.ownsSlots = ownsSlots;
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
        if (node == null) {
            return shared;
        }
        CircuitBreaker breaker = byNode.get(node);
        return breaker != null ? breaker : byNode.computeIfAbsent(node, n -> {
            slotOwners.add(n);
            return newBreaker();
        });
    }

    /**
     * The breaker of Cluster master {@code node} (as {@code nodeOfKey} names it); the shared one for
     * null. One made here, for a node a call was redirected to (ASK), not for a slot's owner, is never
     * forgotten for owning no slot: a master that is being given slots owns none yet.
     */
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

    /** Reports a successful call through {@code breaker}, sent at {@code sentAt} (µs, local clock). */
    void onSuccess(CircuitBreaker breaker, long sentAt) {
        if (health == StoreHealth.UP) {
            breaker.onSuccess(sentAt, now);
            return;
        }
        // Redis answered, whatever a connection check said before: cleared first, so that the
        // breaker's own change (CIRCUIT_OPEN -> UP) is reported as one, not via DEGRADED.
        boolean checkWasFailed = checkFailed;
        if (checkWasFailed) {
            checkFailed = false;
        }
        breaker.onSuccess(sentAt, now);
        if (health != StoreHealth.UP && (checkWasFailed || isDue(clock.nowMicros()))) {
            // The breaker keeping the store's health down may be one nothing needs any more: not
            // looked at before it may be, else while a master is down, the others' successes would
            // all queue for this lock.
            update(null);
        }
    }

    /**
     * Reports the outcome of a connection check: {@code failure} null when Redis answered it. Not
     * atomic with a success clearing the flag: a check failing at the very moment a call succeeds may
     * be lost, which leaves the store UP, as that call showed Redis to be.
     */
    void onCheck(Throwable failure) {
        boolean failed = failure != null;
        if (checkFailed != failed) {
            checkFailed = failed;
            update(failure);
        }
    }

    /** Reports a failed call through {@code breaker}, sent at {@code sentAt}, failed at {@code now}. */
    void onFailure(CircuitBreaker breaker, long sentAt, long now, Throwable cause) {
        breaker.onFailure(sentAt, now, cause);
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

    private boolean isDue(long now) {
        return now >= nextForgetMicros || ownershipCheckDue(now);
    }

    /**
     * Whether the slot map is to be read now: when scheduled, or when the schedule lies further ahead
     * than any schedule can (a clock stepped back), else it would wait until the clock caught up.
     */
    private boolean ownershipCheckDue(long now) {
        long next = nextOwnershipCheckMicros;
        return now >= next || next != Long.MAX_VALUE && next - now > OWNERLESS_FORGET_AFTER_MICROS + OWNERSHIP_CHECK_EVERY_MICROS;
    }

    private synchronized void update(Throwable cause) {
        long now = clock.nowMicros();
        long forgetBefore = now - FORGET_AFTER_MICROS;
        boolean checkOwnership = ownershipCheckDue(now)
                && (lastOwnershipCheckMicros == Long.MIN_VALUE || now < lastOwnershipCheckMicros    // a clock stepped back
                    || now - lastOwnershipCheckMicros >= OWNERSHIP_CHECK_EVERY_MICROS);
        if (checkOwnership) {
            lastOwnershipCheckMicros = now;
        }
        StoreHealth worst = counted(shared, forgetBefore) ? shared.health() : StoreHealth.UP;
        long nextForget = forgetAt(shared, forgetBefore);
        long earliestOwnerless = Long.MAX_VALUE;
        for (Map.Entry<Object, CircuitBreaker> e : byNode.entrySet()) {
            CircuitBreaker breaker = e.getValue();
            if (!counted(breaker, forgetBefore) || checkOwnership && ownerless(e.getKey(), breaker, now)) {
                if (byNode.remove(e.getKey(), breaker)) {
                    slotOwners.remove(e.getKey());
                }
                continue;
            }
            if (breaker.health() != StoreHealth.UP && slotOwners.contains(e.getKey())) {
                earliestOwnerless = Math.min(earliestOwnerless, breaker.lastNeededMicros() + OWNERLESS_FORGET_AFTER_MICROS);
            }
            if (breaker.health().compareTo(worst) > 0) {
                worst = breaker.health();
            }
            nextForget = Math.min(nextForget, forgetAt(breaker, forgetBefore));
        }
        nextForgetMicros = nextForget;
        nextOwnershipCheckMicros = earliestOwnerless == Long.MAX_VALUE || lastOwnershipCheckMicros == Long.MIN_VALUE
                ? earliestOwnerless : Math.max(earliestOwnerless, lastOwnershipCheckMicros + OWNERSHIP_CHECK_EVERY_MICROS);
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

    /** A failing master's breaker that no decision needed lately, of a master the slot map gives no slot. */
    private boolean ownerless(Object node, CircuitBreaker breaker, long now) {
        long idle = now - breaker.lastNeededMicros();   // negative after a clock stepped back: long idle, then
        if (breaker.health() == StoreHealth.UP || idle >= 0 && idle < OWNERLESS_FORGET_AFTER_MICROS || !slotOwners.contains(node)) {
            return false;
        }
        try {
            return !ownsSlots.test(node);
        } catch (RuntimeException e) {
            return false; // no slot map to ask: kept, and forgotten after a minute as before
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
