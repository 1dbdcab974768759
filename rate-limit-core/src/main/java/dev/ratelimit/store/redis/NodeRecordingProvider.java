package dev.ratelimit.store.redis;

import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.providers.ClusterConnectionProvider;

import java.net.InetSocketAddress;
import java.util.Set;

/**
 * The slot map and node pools of a cluster client, remembering per thread the node each call went to
 * last: as a JDK type, since the value stays on the caller's thread, often a container's that
 * outlives the application, where a Jedis {@code HostAndPort} would keep the application's classes
 * loaded after it was undeployed.
 */
final class NodeRecordingProvider extends ClusterConnectionProvider {
    private final ThreadLocal<InetSocketAddress> lastNode = new ThreadLocal<>();
    private volatile boolean closed;

    NodeRecordingProvider(Set<HostAndPort> nodes, JedisClientConfig config, GenericObjectPoolConfig<Connection> pool) {
        super(nodes, config, pool);
    }

    @Override
    public Connection getConnectionFromSlot(int slot) {
        refuseIfClosed();
        remember(getNode(slot)); // the call routed by its keys' slot
        return openOnly(super.getConnectionFromSlot(slot));
    }

    @Override
    public Connection getConnection(HostAndPort node) {
        refuseIfClosed();
        remember(node); // the call redirected by MOVED or ASK
        return openOnly(super.getConnection(node));
    }

    /** Remembers {@code node} as this thread's {@link #tried()}: a call batched for it, which another thread may send. */
    void sendingTo(HostAndPort node) {
        remember(node);
    }

    /** The pool of {@code node}'s connections in the client's node map now; null if the map has none. Never calls Redis. */
    ConnectionPool poolOf(HostAndPort node) {
        return cache.getNode(node);
    }

    /**
     * Whether a wait for a connection of {@code node} that an interrupt ended was ended by its pool
     * closing, not by the caller: a slot map renewal that no longer lists {@code node} (a master that
     * failed and was replaced) destroys its pool, and commons-pool2 interrupts the threads waiting
     * for it. {@code before} is the pool the wait began on (null if there was none yet). Not when
     * the store closed. Never calls Redis.
     */
    boolean dropped(HostAndPort node, ConnectionPool before) {
        if (closed) {
            return false;
        }
        if (before != null) {
            return before.isClosed();
        }
        ConnectionPool now = cache.getNode(node);
        return now == null || now.isClosed();
    }

    /** The node this thread's last call was sent to (or tried to connect to); null if none since {@link #forget()}. */
    HostAndPort tried() {
        InetSocketAddress node = lastNode.get();
        return node == null ? null : new HostAndPort(node.getHostString(), node.getPort());
    }

    /** Forgets {@link #tried()} for this thread. */
    void forget() {
        lastNode.remove();
    }

    private void remember(HostAndPort node) {
        if (node == null) {
            lastNode.remove();
        } else {
            lastNode.set(InetSocketAddress.createUnresolved(node.getHost(), node.getPort()));
        }
    }

    @Override
    public void renewSlotCache() {
        if (!closed) {
            super.renewSlotCache();
            if (closed) {
                super.close(); // pools a renewal re-created after close
            }
        }
    }

    @Override
    public void renewSlotCache(Connection connection) {
        if (!closed) {
            super.renewSlotCache(connection);
            if (closed) {
                super.close();
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        super.close();
    }

    private void refuseIfClosed() {
        if (closed) {
            throw new IllegalStateException("the Redis store is closed");
        }
    }

    private Connection openOnly(Connection c) {
        if (closed) {
            c.close();
            super.close();
            throw new IllegalStateException("the Redis store is closed");
        }
        return c;
    }
}
