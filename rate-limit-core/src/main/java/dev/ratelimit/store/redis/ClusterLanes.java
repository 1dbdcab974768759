package dev.ratelimit.store.redis;

import redis.clients.jedis.ClusterCommandObjects;
import redis.clients.jedis.CommandObjects;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisClusterOperationException;
import redis.clients.jedis.executors.ClusterCommandExecutor;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The Redis Cluster side of {@link CallBatcher}: the lane of each master, which a call joins by its
 * keys' slot in the slot map of the cluster client the store made; a call sent again on its own,
 * within what is left of its time budget; and a pool closed by a slot map renewal told apart from a
 * caller's cancellation.
 */
final class ClusterLanes {
    private final Supplier<NodeRecordingProvider> clusterSlots;
    /** A call's time budget (the cluster client's maxTotalRetriesDuration); null without a cluster client. */
    private final Duration budget;
    private final BooleanSupplier storeClosed;
    /** The lane of each master calls were batched for (as many as masters ever seen). */
    private final ConcurrentHashMap<HostAndPort, BatchLane> masters = new ConcurrentHashMap<>();

    /**
     * @param clusterSlots the slot map and node pools of the cluster client the store made; null otherwise
     * @param budget the time budget of a call on that client (its maxTotalRetriesDuration)
     * @param storeClosed whether the store was closed
     */
    ClusterLanes(Supplier<NodeRecordingProvider> clusterSlots, Duration budget, BooleanSupplier storeClosed) {
        this.clusterSlots = clusterSlots;
        this.budget = budget;
        this.storeClosed = storeClosed;
    }

    /**
     * The lane of the master that owns {@code call}'s keys' slot, remembered as the node this thread
     * tried; null unless {@code redis} is the cluster client the store made and its slot map knows the slot.
     */
    BatchLane laneOf(UnifiedJedis redis, BatchedCall call) {
        NodeRecordingProvider slots = clusterSlots.get();
        if (slots == null || !(redis instanceof RedisClusterClient) || call.keys.isEmpty()) {
            return null;
        }
        HostAndPort master = slots.getNode(JedisClusterCRC16.getSlot(call.keys.get(0)));
        if (master == null) {
            return null;
        }
        slots.sendingTo(master); // the caller's own: its sender may be another thread
        return masters.computeIfAbsent(master, m -> new BatchLane(m, slots));
    }

    /**
     * Sends a Cluster call again on its own (redirected, or its batch failed fast or lost its master's
     * pool), with the attempts, redirections and slot map renewal of Jedis' cluster executor, within
     * what is left of the call's time budget (counted from when it was made), as the call's own
     * attempts would have been unbatched: a batch that broke, or was answered MOVED, part-way through
     * the budget (a master that hung, then died or failed over) must not give its calls a second
     * budget. With nothing left, it fails as Jedis' executor would have ("deadline exceeded").
     */
    Object sendAlone(BatchedCall call) {
        NodeRecordingProvider slots = clusterSlots.get();
        long left = budget == null ? 0 : budget.toNanos() - (System.nanoTime() - call.madeAt);
        if (slots == null || left <= 0) {
            throw new JedisClusterOperationException("Cluster retry deadline exceeded.", call.failure);
        }
        // No close(): it would close the client's slot map and pools, which this executor only borrows.
        ClusterCommandExecutor executor = new ClusterCommandExecutor(slots, Clients.CLUSTER_ATTEMPTS, Duration.ofNanos(left));
        CommandObjects commands = new ClusterCommandObjects(RedisProtocol.RESP2);
        return executor.executeCommand(call.function ? commands.fcall(call.name, call.keys, call.args)
                : commands.evalsha(call.name, call.keys, call.args));
    }

    /**
     * Whether {@code failure} ended an unbatched call's wait for a connection of a Cluster node (nothing
     * was sent) because a slot map renewal dropped that node and destroyed its pool, not because the
     * caller was cancelled: the wait was interrupted, the thread's interrupt status is clear, the store
     * is open, and the pool of the node the call went to is gone. Sent again, the call goes by the new slot map.
     */
    boolean poolDropped(UnifiedJedis redis, RuntimeException failure) {
        if (!(redis instanceof RedisClusterClient) || !waitEndedByAPool(failure)) {
            return false;
        }
        NodeRecordingProvider slots = clusterSlots.get();
        HostAndPort tried = slots == null ? null : slots.tried();
        return tried != null && slots.dropped(tried, null);
    }

    /**
     * The same for a batch sender of {@code lane}, a Cluster master's, whose wait for a connection of
     * {@code poolBefore} (the master's pool when the wait began) {@code failure} ended.
     */
    boolean poolDropped(BatchLane lane, ConnectionPool poolBefore, RuntimeException failure) {
        return lane.master != null && waitEndedByAPool(failure) && lane.slots.dropped(lane.master, poolBefore);
    }

    /** An interrupted wait for a connection, the thread's interrupt status clear, the store open. */
    private boolean waitEndedByAPool(RuntimeException failure) {
        return CallFailure.isInterruptedWait(failure) && !Thread.currentThread().isInterrupted() && !storeClosed.getAsBoolean();
    }
}
