package dev.ratelimit.store.redis;

import org.apache.commons.pool2.impl.GenericObjectPool;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.SslOptions;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.providers.ClusterConnectionProvider;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The Jedis client behind a store, created on first use rather than at start-up: a cluster or
 * sentinel client must reach a node to be created at all, and an application should start (and
 * follow its failure mode) while Redis is down. Creation is retried by later calls until it works.
 *
 * <p>The client is made by {@link Clients}, or passed in. Timeouts bound every wait of one the
 * store makes: connecting, reading a reply, and borrowing a pooled connection.
 */
final class Connections implements AutoCloseable {
    private static final long NEVER = Long.MIN_VALUE;
    /** How often a failing store may read the slot map again, or drop its connections after a replica's answer. */
    private static final long ONCE_A_SECOND_MICROS = 1_000_000;

    /**
     * A client; for a cluster client made here, its slot map; for a single-node client made here, the
     * factory of its pooled connections.
     */
    record Created(UnifiedJedis client, ClusterConnectionProvider clusterSlots, FreshConnectionFactory connections) {
        Created(UnifiedJedis client, ClusterConnectionProvider clusterSlots) {
            this(client, clusterSlots, null);
        }
    }

    private final Supplier<Created> factory;
    private final boolean owned;
    private volatile UnifiedJedis client;
    /** The slot map of a cluster client this store created; null otherwise. */
    private volatile ClusterConnectionProvider clusterSlots;
    /** The factory of the pooled connections of a single-node client this store created; null otherwise. */
    private volatile FreshConnectionFactory made;
    private volatile boolean closed;
    /** When the slot map was last read again after a failure (the store's clock, µs); {@link #NEVER} before. */
    private final AtomicLong slotMapRenewedAt = new AtomicLong(NEVER);
    /** When connections made before were last expired (the store's clock, µs); {@link #NEVER} before. */
    private final AtomicLong expiredAt = new AtomicLong(NEVER);
    /** The creation under way, if any; guarded by this. */
    private CompletableFuture<UnifiedJedis> creating;

    /** Connections whose client {@code factory} creates on first use; for tests, a factory of their own. */
    Connections(Supplier<Created> factory, UnifiedJedis client, boolean owned) {
        this.factory = factory;
        this.client = client;
        this.owned = owned;
    }

    /** Connections the store creates from {@code url} (its password from {@code passwordFile}, if not null) and closes with itself. */
    static Connections of(RedisUrl url, Duration connectTimeout, Duration readTimeout, int poolSize, SslOptions ssl,
                          PasswordFile passwordFile) {
        return new Connections(() -> Clients.create(url, connectTimeout, readTimeout, poolSize, ssl, passwordFile), null, true);
    }

    /** A client the caller made and keeps: the store never closes it. */
    static Connections wrap(UnifiedJedis client) {
        return new Connections(() -> new Created(client, null), client, false);
    }

    /** Whether {@link #close()} was called. */
    boolean isClosed() {
        return closed;
    }

    /**
     * The client, creating it if needed; throws whatever creating it throws. One thread creates
     * (which may wait for timeouts on every seed node or sentinel) while concurrent callers wait for
     * that attempt and share its outcome: each caller waits for at most one attempt, however many
     * arrive together, rather than for one attempt per caller queued ahead of it. An attempt ended by
     * the creating thread's interrupt is that thread's alone: the callers waiting for it try again (a
     * waiter interrupted meanwhile gives up instead, with that failure), so a waiter may wait for one
     * attempt per interrupted creator.
     */
    UnifiedJedis client() {
        UnifiedJedis c = client;
        if (c != null) {
            return c;
        }
        while (true) {
            CompletableFuture<UnifiedJedis> attempt;
            boolean mine = false;
            synchronized (this) {
                if (closed) {
                    throw new IllegalStateException("the Redis store is closed");
                }
                if (client != null) {
                    return client;
                }
                if (creating == null) {
                    creating = new CompletableFuture<>();
                    mine = true;
                }
                attempt = creating;
            }
            if (mine) {
                create(attempt);
            }
            try {
                return attempt.join();
            } catch (CompletionException e) {
                CancelledAttempt.retryOrThrow(e, mine); // the creating thread was interrupted: create it again, perhaps here
            }
        }
    }

    /**
     * Creates the client outside the lock and completes {@code attempt} with it or with the failure
     * (a {@link CancelledAttempt} when this thread's interrupt ended it).
     */
    private void create(CompletableFuture<UnifiedJedis> attempt) {
        Created created;
        try {
            created = factory.get();
        } catch (RuntimeException | Error e) {
            synchronized (this) {
                creating = null;
            }
            attempt.completeExceptionally(CancelledAttempt.outcome(e));
            return;
        }
        boolean closedMeanwhile;
        synchronized (this) {
            creating = null;
            closedMeanwhile = closed;
            if (!closedMeanwhile) {
                clusterSlots = created.clusterSlots();
                made = created.connections();
                client = created.client();
            }
        }
        if (closedMeanwhile) {
            // The waiters first: a client whose close() throws must not leave them waiting for good.
            attempt.completeExceptionally(new IllegalStateException("the Redis store is closed"));
            if (owned) {
                try {
                    created.client().close();
                } catch (RuntimeException ignored) {
                    // a client nobody will use: its connections go with it
                }
            }
        } else {
            attempt.complete(created.client());
        }
    }

    /**
     * The Redis Cluster master that owns {@code key}'s hash slot, as the client last saw the slot
     * map; null unless this store created a cluster client that knows the slot. Never calls Redis.
     */
    HostAndPort nodeOf(String key) {
        ClusterConnectionProvider slots = clusterSlots;
        return slots == null ? null : slots.getNode(JedisClusterCRC16.getSlot(key));
    }

    /** The slot map and node pools of the cluster client this store created; null before it exists, and otherwise. */
    NodeRecordingProvider clusterSlots() {
        return clusterSlots instanceof NodeRecordingProvider recording ? recording : null;
    }

    /**
     * The Redis Cluster masters that own slots, as the client last saw the slot map; empty unless this
     * store created a cluster client. Reads the whole map: for the start-up check. Never calls Redis.
     */
    Set<HostAndPort> masters() {
        ClusterConnectionProvider slots = clusterSlots;
        Set<HostAndPort> masters = new LinkedHashSet<>();
        if (slots != null) {
            for (int slot = 0; slot < Protocol.CLUSTER_HASHSLOTS; slot++) {
                HostAndPort node = slots.getNode(slot);
                if (node != null) {
                    masters.add(node);
                }
            }
        }
        return masters;
    }

    /**
     * Whether Redis Cluster master {@code node} owns a hash slot in the slot map as the client last saw
     * it (true when this store has no slot map). Reads the whole map: for a failing master only, and
     * rarely. Never calls Redis.
     */
    boolean ownsSlots(HostAndPort node) {
        ClusterConnectionProvider slots = clusterSlots;
        if (slots == null) {
            return true;
        }
        for (int slot = 0; slot < Protocol.CLUSTER_HASHSLOTS; slot++) {
            if (node.equals(slots.getNode(slot))) {
                return true;
            }
        }
        return false;
    }

    /**
     * The Redis Cluster node this thread's last cluster call was last sent to (or tried to connect
     * to): the master owning the keys' slot, or where a MOVED or ASK redirection sent it; null unless
     * this store created a cluster client. Never calls Redis.
     */
    HostAndPort nodeTried() {
        return clusterSlots instanceof NodeRecordingProvider recording ? recording.tried() : null;
    }

    /** Forgets {@link #nodeTried()} before a call, so that a call that never reached a node names none. */
    void forgetNodeTried() {
        if (clusterSlots instanceof NodeRecordingProvider recording) {
            recording.forget();
        }
    }

    /**
     * After a connection failure on a cluster client this store created, reads the slot map again (at
     * most once a second): a master that stopped answering (its host down, calls timing out rather
     * than refused) may have been replaced by its replica, and no reply will say so. Jedis reads the
     * map again by itself only after a MOVED reply or a second failed attempt of one call, and a call
     * is not tried again once its read timeout has passed. The reading asks the nodes one after
     * another, each within the connect and read timeouts, so it runs on a short-lived daemon thread
     * of its own: no request waits for it. Never throws.
     */
    void renewSlotMapAfterFailure(long nowMicros) {
        ClusterConnectionProvider slots = clusterSlots;
        if (slots == null || !firstInASecond(slotMapRenewedAt, nowMicros)) {
            return;
        }
        try {
            Thread renewal = new Thread(() -> {
                try {
                    slots.renewSlotCache();
                } catch (RuntimeException ignored) {
                    // no node answered: the next failure after a second tries again
                }
            }, "rate-limit-cluster-slots");
            renewal.setDaemon(true);
            renewal.start();
        } catch (RuntimeException | OutOfMemoryError ignored) {
            // no thread to be had: the next failure after a second tries again
        }
    }

    /**
     * Whether {@code nowMicros} is a second or more after the time {@code at} holds (or before it: a
     * clock stepped back), and this caller took it: then {@code at} holds {@code nowMicros}.
     */
    private static boolean firstInASecond(AtomicLong at, long nowMicros) {
        long last = at.get();
        long elapsed = nowMicros - last;
        return (last == NEVER || elapsed < 0 || elapsed >= ONCE_A_SECOND_MICROS) && at.compareAndSet(last, nowMicros);
    }

    /** Whether the client exists (made or passed in), so that a failure came from one of its connections. */
    boolean hasClient() {
        return client != null;
    }

    /**
     * Drops idle pooled connections after a connection failure: after a Redis restart every idle
     * connection is dead, and without this each would fail one request before the pool noticed. When
     * {@code failure} broke an open connection, the connections in use are most likely dead too; when
     * it is a replica's READONLY, they lead to a demoted primary (a failover behind one endpoint):
     * those of a client this store created fail their next borrow (others come back to the pool).
     * That, at most once a second on the store's clock (a clock that stands still, as a test's may,
     * expires them once): one connection closed on a healthy Redis (an idle timeout) must not have the
     * whole pool reconnect each time, nor an endpoint that spreads connections over a primary and its
     * replica (a misconfigured load balancer) every decision; after a READONLY within the second, idle
     * connections are not dropped either. Other clients' idle connections are dropped at every such
     * failure: dropping them is their only way off a demoted primary. Never throws.
     */
    void dropIdleConnections(Throwable failure, long nowMicros) {
        FreshConnectionFactory m = made;
        if (m != null) {
            boolean replica = CallFailure.reachedAReplica(failure);
            if (replica || CallFailure.brokeAnOpenConnection(failure)) {
                if (firstInASecond(expiredAt, nowMicros)) {
                    m.expireAll();
                } else if (replica) {
                    return;
                }
            }
        }
        UnifiedJedis c = client;
        try {
            if (c instanceof RedisClient single) {
                clear(single.getPool());
            } else if (c instanceof RedisClusterClient cluster) {
                for (ConnectionPool pool : cluster.getClusterNodes().values()) {
                    clear(pool);
                }
            } else if (c instanceof RedisSentinelClient sentinel) {
                for (Object pool : sentinel.getPrimaryNodesConnectionMap().values()) {
                    if (pool instanceof GenericObjectPool<?> p) {
                        clear(p);
                    }
                }
            }
        } catch (RuntimeException notJedisOwnPool) {
            // A RedisClient passed in on a connection provider of its own: getPool() fails its cast. Nothing to drop.
        }
    }

    private static void clear(GenericObjectPool<?> pool) {
        try {
            pool.clear();
        } catch (RuntimeException ignored) {
            // best effort: a pool being closed or rebuilt needs no clearing
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (owned && client != null) {
            client.close();
        }
        client = null;
        clusterSlots = null;
        made = null;
    }
}
