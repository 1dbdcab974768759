package dev.ratelimit.store.redis;

import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.UnifiedJedis;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/** The calls waiting for one server (or one Cluster master), and the count of batches in flight to it. */
final class BatchLane {
    /** The Cluster master the batches go to, on a connection of {@link #slots}; null: the client's own server. */
    final HostAndPort master;
    final NodeRecordingProvider slots;
    final ConcurrentLinkedQueue<BatchedCall> queue = new ConcurrentLinkedQueue<>();
    final AtomicInteger senders = new AtomicInteger();

    BatchLane(HostAndPort master, NodeRecordingProvider slots) {
        this.master = master;
        this.slots = slots;
    }

    /** The pool of this Cluster master's connections in the client's node map now; null if none, or not a master's lane. */
    ConnectionPool masterPool() {
        return master == null ? null : slots.poolOf(master);
    }

    /** A pipeline on one pooled connection: the client's, or this Cluster master's. */
    AbstractPipeline pipelined(UnifiedJedis redis) {
        return master == null ? redis.pipelined() : new Pipeline(slots.getConnection(master), true);
    }
}
