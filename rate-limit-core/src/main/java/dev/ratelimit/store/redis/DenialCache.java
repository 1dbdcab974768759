package dev.ratelimit.store.redis;

import dev.ratelimit.Decision;
import dev.ratelimit.Source;
import dev.ratelimit.Verdict;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Remembers, per client of one limit, that Redis rejected a request of some cost with a retry-after
 * of R, so that further requests of that same cost are rejected here, without a Redis call, until
 * {@code sentAt + R}. {@code sentAt} is this instance's clock when the rejected request was sent, before
 * Redis decided it, so the cached denial can only end early, never late: nobody can give a client
 * its tokens back early. Only the same cost: a larger one would be refused rightly but told a wait
 * too short (its own is longer), a smaller one may pass. A request of the client that Redis allows
 * ({@link #forget}) drops its denial, whose remaining quota and waits it has made stale.
 *
 * <p>Bounded and lock-free (but for making the table, once, at the first denial): a fixed table of {@value #SLOTS} slots, two candidate slots per client
 * hash; a new denial replaces the client's own of the same cost, else an empty or expired one, else
 * the client's own of another cost, else the one expiring first (so a client refused at two costs
 * may hold both slots). Only client hashes are kept, never raw keys.
 */
final class DenialCache {
    static final int SLOTS = 4096;

    private record Denial(String clientHash, long cost, long sentAt, long until, Decision decision) {
    }

    /** Null until the first denial: a limit that never refuses anyone costs no table (4096 references). */
    private volatile AtomicReferenceArray<Denial> slots;
    private final long maxCacheableCost;

    /** @param maxCacheableCost the smallest policy limit: a larger cost is never passable and is asked of Redis */
    DenialCache(long maxCacheableCost) {
        this.maxCacheableCost = maxCacheableCost;
    }

    /** The cached rejection of {@code cost} for this client at {@code now}, or null to ask Redis. */
    Decision lookup(String clientHash, long cost, long now) {
        if (cost > maxCacheableCost) {
            return null;
        }
        AtomicReferenceArray<Denial> slots = this.slots;
        if (slots == null) {
            return null;
        }
        int first = first(clientHash);
        Denial d = slots.get(first);
        if (!holds(d, clientHash, cost)) {
            d = slots.get(first ^ 1);
            if (!holds(d, clientHash, cost)) {
                return null;
            }
        }
        if (now >= d.until || now < d.sentAt) {
            // A clock behind the rejected request's send time was stepped back: the cached end would
            // now be further away than Redis said, so ask Redis again.
            return null;
        }
        Decision r = d.decision;
        long elapsed = Math.max(0, now - d.sentAt);
        return new Decision(Verdict.REJECTED, Source.DENIAL_CACHE, r.policy(), r.limit(), r.remaining(),
                Math.max(d.until - now, r.resetAfterMicros() - elapsed), d.until - now);
    }

    /** Records Redis' rejection {@code decision} of {@code cost}, a request sent at {@code sentAt}. */
    void remember(String clientHash, long cost, long sentAt, Decision decision) {
        if (decision.verdict() != Verdict.REJECTED || decision.retryAfterMicros() <= 0 || cost > maxCacheableCost) {
            return;
        }
        Denial denial = new Denial(clientHash, cost, sentAt, sentAt + decision.retryAfterMicros(), decision);
        AtomicReferenceArray<Denial> slots = table();
        int first = first(clientHash);
        Denial a = slots.get(first);
        Denial b = slots.get(first ^ 1);
        int slot;
        if (holds(a, clientHash, cost)) {
            slot = first;
        } else if (holds(b, clientHash, cost)) {
            slot = first ^ 1;
        } else if (a == null || a.until <= sentAt) {
            slot = first;
        } else if (b == null || b.until <= sentAt) {
            // A client asking with two costs (two endpoints sharing one limit) may hold both slots.
            slot = first ^ 1;
        } else if (a.clientHash.equals(clientHash)) {
            slot = first;
        } else if (b.clientHash.equals(clientHash)) {
            slot = first ^ 1;
        } else {
            slot = a.until <= b.until ? first : first ^ 1;
        }
        slots.set(slot, denial);
    }

    /** Whether a denial has made the table yet. */
    boolean hasTable() {
        return slots != null;
    }

    /** The table, made by the first denial (two threads making it at once keep the same one). */
    private AtomicReferenceArray<Denial> table() {
        AtomicReferenceArray<Denial> table = slots;
        if (table == null) {
            synchronized (this) {
                table = slots;
                if (table == null) {
                    table = new AtomicReferenceArray<>(SLOTS);
                    slots = table;
                }
            }
        }
        return table;
    }

    private static boolean holds(Denial d, String clientHash, long cost) {
        return d != null && d.cost == cost && d.clientHash.equals(clientHash);
    }

    /** Drops the client's cached denial: Redis has just allowed one of its requests, which spent some of its quota. */
    void forget(String clientHash) {
        AtomicReferenceArray<Denial> slots = this.slots;
        if (slots == null) {
            return;
        }
        int first = first(clientHash);
        for (int slot : new int[] {first, first ^ 1}) {
            Denial d = slots.get(slot);
            if (d != null && d.clientHash.equals(clientHash)) {
                slots.compareAndSet(slot, d, null);
            }
        }
    }

    private static int first(String clientHash) {
        return (clientHash.hashCode() * 0x9E3779B9 >>> 20) & (SLOTS - 1);
    }
}
