package dev.ratelimit.store.redis;

import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
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
