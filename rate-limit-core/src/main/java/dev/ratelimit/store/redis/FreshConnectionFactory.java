package dev.ratelimit.store.redis;

import org.apache.commons.pool2.PooledObject;
import org.apache.commons.pool2.impl.DefaultPooledObject;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionFactory;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.exceptions.JedisConnectionException;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Jedis' connection factory, for a pool that tests connections on borrow, and whose test is free: a
 * connection made before Redis last closed a connection under a call ({@link #expireAll()}) fails it
 * and is closed, unless it is being borrowed for the first time. When Redis closes every connection
 * at once (a restart, {@code CLIENT KILL}, a proxy's reload), dropping the idle ones is not enough: a
 * connection another call was using comes back to the pool afterwards, as dead, and would fail the
 * next call that takes it. No connection is tested by a call to Redis.
 */
final class FreshConnectionFactory extends ConnectionFactory {
    private final AtomicLong generation = new AtomicLong();

    FreshConnectionFactory(HostAndPort node, JedisClientConfig config) {
        super(node, config);
    }

    /** Connections made until now fail the test on their next borrow. */
    void expireAll() {
        generation.incrementAndGet();
    }

    /**
     * Makes a connection, or throws {@link NotConnected}: a connection that failed while it was being set
     * up (refused, or accepted and closed by an endpoint with no Redis behind it) is not one that broke.
     */
    @Override
    public PooledObject<Connection> makeObject() throws Exception {
        long madeIn = generation.get();
        try {
            return new Made(super.makeObject().getObject(), madeIn);
        } catch (JedisConnectionException e) {
            throw new NotConnected(e);
        }
    }

    /**
     * A connection that could not be set up: Jedis' exception, as the cause, with its message (a
     * timeout is still one). Log lines and check messages name the cause, not this wrapper.
     */
    static final class NotConnected extends JedisConnectionException {
        private static final long serialVersionUID = 1L;

        NotConnected(JedisConnectionException cause) {
            super(cause.getMessage(), cause);
        }
    }

    @Override
    public boolean validateObject(PooledObject<Connection> p) {
        // A connection borrowed for the first time was made in this borrow: it is fresh, whatever
        // expired while it connected (a failed test here would fail the borrow).
        return p.getBorrowedCount() <= 1 || p instanceof Made made && made.generation == generation.get();
    }

    /** A pooled connection and the generation it was made in. */
    private static final class Made extends DefaultPooledObject<Connection> {
        final long generation;

        Made(Connection connection, long generation) {
            super(connection);
            this.generation = generation;
        }
    }
}
