package dev.ratelimit.store.redis;

import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisRedirectionException;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Lets concurrent decisions share round trips to one Redis node. Each decision is still one script
 * call of its own, decided atomically by Redis; what is shared is the network round trip and the
 * read and write system calls on both sides, which on a busy Redis cost more than the script.
 *
 * <p>No thread waits to fill a batch: a caller that finds fewer than {@link #MAX_SENDERS} batches in
 * flight sends at once whatever calls are queued, its own included, on one pooled connection as one
 * pipeline (so a lone caller makes exactly the call it would make alone); callers arriving while
 * the senders are busy queue up and go together in the next batch. A sender hands the queue to a
 * waiting caller when it is done, so no caller sends more than one batch for others once its own
 * call has gone (a caller with more than {@link #MAX_BATCH} calls queued ahead of it sends those
 * first, a batch at a time).
 *
 * <p>A failure of the batch (a broken connection, a timeout) is every call's failure; a timeout is
 * also the failure of every call still queued, so that no caller waits out more than the timeout
 * it found in flight and its own. An error reply (such as NOSCRIPT) is the failure of its own call
 * only.
 *
 * <p>On a Redis Cluster client the store made, calls are batched per master: each goes in the queue
 * of the master that owns its keys' slot in the client's slot map, and a batch goes on one pooled
 * connection to that master, so a dead or slow master delays and fails only its own calls. Jedis'
 * cluster executor, which follows MOVED and ASK and tries a call again after a connection failure,
 * is not in a batch's way: a call answered by a redirection, and every call of a batch that failed
 * fast (a connection refused or broken, not a timeout), is sent again on its own by its caller
 * through a cluster executor, with the redirections and retries an unbatched call gets, within what
 * is left of the call's time budget ({@link ClusterLanes}). A slot
 * the client's map does not know, and any other client not known to talk to one server (a
 * {@code UnifiedJedis} passed in on a cluster connection provider), is not batched.
 *
 * <p>A virtual thread's blocking socket I/O is interruptible: interrupting the thread closes the
 * socket. So a sender on a virtual thread sends its batch from a virtual thread of its own, which
 * nobody interrupts, and waits for it: interrupting one caller (a cancelled task) must not break
 * the pooled connection that carries other callers' calls, fail them, or have them sent again. A
 * sender interrupted while it waits for a pooled connection has sent nothing: it puts the calls back
 * in the queue and goes on. To a batched caller, an interrupt is never a cancellation: its call is
 * decided, and its interrupt status is restored when it returns (unless the interrupt was a pool's,
 * closing: the store's, a Sentinel client's replaced at a failover, or a Cluster master's dropped
 * from the slot map).
 */
final class CallBatcher {
    /**
     * Batches in flight at once. Fewer make bigger batches but leave a few concurrent callers
     * waiting for each other (2 cost a third of the throughput at 4 threads on 2 cores); more make
     * batches too small to matter. 4 measured best at 4 and 16 threads.
     */
    static final int MAX_SENDERS = 4;
    /** Calls per batch at most, bounding what one sender does for others. */
    static final int MAX_BATCH = 64;
    /** {@code Thread.isVirtual()} (Java 21+), or null on a Java without virtual threads. */
    private static final MethodHandle IS_VIRTUAL;
    /** Makes the virtual threads that send batches for virtual-thread senders; null without virtual threads. */
    private static final ThreadFactory VIRTUAL_SENDERS;

    static {
        MethodHandle isVirtual = null;
        ThreadFactory senders = null;
        try {
            // Reflectively: the library is built for Java 17, which has neither method.
            isVirtual = MethodHandles.publicLookup().findVirtual(Thread.class, "isVirtual", MethodType.methodType(boolean.class));
            Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
            builder = Class.forName("java.lang.Thread$Builder").getMethod("name", String.class).invoke(builder, "rate-limit-batch");
            senders = (ThreadFactory) Class.forName("java.lang.Thread$Builder").getMethod("factory").invoke(builder);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError noVirtualThreads) {
            isVirtual = null; // Java 17, or 19-20 without --enable-preview: no virtual thread can call us
            senders = null;
        }
        IS_VIRTUAL = isVirtual;
        VIRTUAL_SENDERS = senders;
    }

    private final boolean enabled;
    private final Predicate<UnifiedJedis> batchable;
    private final BooleanSupplier storeClosed;
    private final Function<UnifiedJedis, Object> poolOf;
    /** The lanes of a Cluster client's masters. */
    private final ClusterLanes cluster;
    /** The lane of a client that talks to one server. */
    private final BatchLane oneServer = new BatchLane(null, null);

    /**
     * @param storeClosed whether the store was closed (its pool interrupts the threads waiting for a connection)
     * @param clusterSlots the slot map and node pools of the cluster client the store made; null otherwise
     * @param clusterBudget the time budget of a call on that client (its maxTotalRetriesDuration)
     */
    CallBatcher(boolean enabled, BooleanSupplier storeClosed, Supplier<NodeRecordingProvider> clusterSlots, Duration clusterBudget) {
        this(enabled, CallBatcher::talksToOneServer, storeClosed, CallBatcher::sentinelPool, clusterSlots, clusterBudget);
    }

    /**
     * @param batchable whether calls through a client may be batched (tests batch through a fake client)
     * @param poolOf the pool a client's connections come from where Jedis may replace it (a Sentinel
     *               client's, at a failover); null where it never does
     */
    CallBatcher(boolean enabled, Predicate<UnifiedJedis> batchable, BooleanSupplier storeClosed, Function<UnifiedJedis, Object> poolOf) {
        this(enabled, batchable, storeClosed, poolOf, () -> null, null);
    }

    private CallBatcher(boolean enabled, Predicate<UnifiedJedis> batchable, BooleanSupplier storeClosed,
                        Function<UnifiedJedis, Object> poolOf, Supplier<NodeRecordingProvider> clusterSlots, Duration clusterBudget) {
        this.enabled = enabled;
        this.batchable = batchable;
        this.storeClosed = storeClosed;
        this.poolOf = poolOf;
        this.cluster = new ClusterLanes(clusterSlots, clusterBudget, storeClosed);
    }

    /** EVALSHA {@code sha1} with {@code keys} and {@code args}, in a batch when that is possible. */
    Object evalsha(UnifiedJedis redis, String sha1, List<String> keys, List<String> args) {
        return route(redis, new BatchedCall(false, sha1, keys, args));
    }

    /** FCALL {@code function} with {@code keys} and {@code args}, in a batch when that is possible. */
    Object fcall(UnifiedJedis redis, String function, List<String> keys, List<String> args) {
        return route(redis, new BatchedCall(true, function, keys, args));
    }

    /** Sends {@code call} in the batch of its server (or Cluster master), or on its own. */
    private Object route(UnifiedJedis redis, BatchedCall call) {
        if (enabled) {
            if (batchable.test(redis)) {
                return call(oneServer, redis, call);
            }
            BatchLane master = cluster.laneOf(redis, call);
            if (master != null) {
                return call(master, redis, call);
            }
        }
        return unbatched(redis, call.function, call.name, call.keys, call.args);
    }

    /**
     * FCALL (if {@code function}) or EVALSHA of {@code name}, on its own. A call whose wait for a pooled
     * connection a Sentinel failover interrupted (Jedis closes the old master's pool, and commons-pool
     * interrupts the threads waiting for it) is sent again on the new master's pool: nobody cancelled its caller.
     */
    private Object unbatched(UnifiedJedis redis, boolean function, String name, List<String> keys, List<String> args) {
        Object pool = poolOf.apply(redis);
        try {
            return function ? redis.fcall(name, keys, args) : redis.evalsha(name, keys, args);
        } catch (RuntimeException e) {
            if (!poolReplaced(redis, pool, e) && !cluster.poolDropped(redis, e)) {
                throw e;
            }
            return function ? redis.fcall(name, keys, args) : redis.evalsha(name, keys, args);
        }
    }

    /**
     * The pool a Sentinel client's connections come from now (Jedis replaces it at a failover, then
     * closes the old one); null for any other client. Allocates a small map, on Sentinel clients only.
     */
    private static Object sentinelPool(UnifiedJedis redis) {
        if (!(redis instanceof RedisSentinelClient sentinel)) {
            return null;
        }
        Iterator<?> pools = sentinel.getPrimaryNodesConnectionMap().values().iterator();
        return pools.hasNext() ? pools.next() : null;
    }

    /**
     * Whether {@code failure} ended a wait for a connection of {@code pool} (nothing was sent) because
     * Jedis replaced that pool and closed it, not because the caller was cancelled: the wait was
     * interrupted, the thread's interrupt status is clear (a socket closed by a virtual thread's
     * interrupt, after a send maybe, leaves it set), the store is open, and the client's pool is another
     * one now. A caller really cancelled during a wait that began as the pool was replaced loses its interrupt.
     */
    private boolean poolReplaced(UnifiedJedis redis, Object pool, RuntimeException failure) {
        return pool != null && CallFailure.isInterruptedWait(failure) && !Thread.currentThread().isInterrupted()
                && !storeClosed.getAsBoolean() && pool != poolOf.apply(redis);
    }

    private Object call(BatchLane lane, UnifiedJedis redis, BatchedCall call) {
        lane.queue.offer(call);
        boolean interrupted = false;
        while (!call.done) {
            int n;
            // Only a caller whose call is still queued sends; one whose call a sender took waits for
            // that sender (sending empty batches instead would spin).
            if (!call.taken && (n = lane.senders.get()) < MAX_SENDERS && lane.senders.compareAndSet(n, n + 1)) {
                try {
                    interrupted |= sendShielded(lane, redis);
                } finally {
                    lane.senders.decrementAndGet();
                    // A caller that queued while this one was sending may be parked: wake the oldest
                    // so it sends the next batch (if it is already running, its next park returns at once).
                    BatchedCall next = lane.queue.peek();
                    if (next != null) {
                        LockSupport.unpark(next.caller);
                    }
                }
            } else if (!call.done) {
                LockSupport.park(this);
                if (Thread.interrupted()) {
                    interrupted = true; // restored below: the wait is bounded by the sender's timeouts
                }
            }
        }
        try {
            if (call.sendAlone) {
                // A Cluster call redirected, or whose batch failed fast: sent on its own, as it would have been unbatched.
                return cluster.sendAlone(call);
            }
            if (call.failure instanceof RuntimeException e) {
                throw e;
            }
            if (call.failure instanceof Error e) {
                throw e; // as an unbatched call would have: the store decides what an Error means
            }
            return call.reply;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * {@link #send}s a batch from this thread, or, from a virtual thread, from a virtual thread of its
     * own that this one waits for, uninterruptibly (the wait is bounded by the batch's timeouts).
     *
     * @return whether this thread was interrupted while it waited or sent (the caller restores the status)
     */
    private boolean sendShielded(BatchLane lane, UnifiedJedis redis) {
        Thread caller = Thread.currentThread();
        if (VIRTUAL_SENDERS == null || !isVirtual(caller)) {
            return send(lane, redis, caller);
        }
        Thread sender;
        try {
            sender = VIRTUAL_SENDERS.newThread(() -> send(lane, redis, caller));
            sender.start();
        } catch (RuntimeException | OutOfMemoryError noThread) {
            return send(lane, redis, caller); // exposed to this thread's interrupts, as before, rather than not sent
        }
        boolean interrupted = false;
        while (true) {
            try {
                sender.join();
                return interrupted;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
    }

    private static boolean isVirtual(Thread thread) {
        try {
            return (boolean) IS_VIRTUAL.invokeExact(thread);
        } catch (Throwable unexpected) {
            return false;
        }
    }

    /**
     * Sends the queued calls (up to {@link #MAX_BATCH}) as one pipeline and completes each.
     *
     * @param owner the thread whose call made it a sender: a non-linkage {@link Error} is its call's own
     * @return whether this thread's interrupt ended its wait for a connection while the store was open
     *         (the calls were put back in the queue; the caller restores its interrupt status when its
     *         call is done)
     */
    private boolean send(BatchLane lane, UnifiedJedis redis, Thread owner) {
        ConcurrentLinkedQueue<BatchedCall> queue = lane.queue;
        List<BatchedCall> batch = new ArrayList<>(Math.min(MAX_BATCH, 16));
        for (BatchedCall c; batch.size() < MAX_BATCH && (c = queue.poll()) != null; ) {
            c.taken = true;
            batch.add(c);
        }
        if (batch.isEmpty()) {
            return false;
        }
        try {
            AbstractPipeline pipeline;
            Object pool = poolOf.apply(redis);
            ConnectionPool masterPool = lane.masterPool();
            if (lane.master != null && masterPool == null) {
                // A slot map read since these calls queued no longer names this master (it failed and
                // was replaced): connecting would put it back in the client's node map, and cost a
                // connect timeout on a host that is down. Each call goes on its own, by the new slot map.
                sendEachAlone(batch, null);
                return false;
            }
            try {
                pipeline = lane.pipelined(redis);
            } catch (RuntimeException noConnection) {
                if (!CallFailure.isCancellation(noConnection)) {
                    throw noConnection;
                }
                if (cluster.poolDropped(lane, masterPool, noConnection)) {
                    // A slot map renewal dropped this master (it failed, and its replica took over) and
                    // closed its pool, which interrupted the wait: nobody cancelled this thread. Nothing
                    // was sent; each call goes on its own, by the new slot map, rather than back to this
                    // master's queue.
                    sendEachAlone(batch, null);
                    return false;
                }
                // This thread was interrupted while it waited for a pooled connection: nothing was sent.
                // Its interrupt must not fail the calls of others (nor leave their threads interrupted),
                // and to a batched caller an interrupt is no cancellation: every call goes back to the
                // queue, and the caller restores its interrupt once its call is done. The interrupt may
                // also be the pool's, closing: the store's close() (then the calls fail at their next
                // send), or Jedis replacing a Sentinel client's pool at a failover (then they go on the
                // new one); no caller is then left interrupted. That is the only interrupt a virtual
                // thread sending for a virtual caller (sendShielded) ever meets.
                for (BatchedCall c : batch) {
                    c.taken = false;
                    queue.offer(c);
                }
                batch.clear();
                return owner == Thread.currentThread() && !storeClosed.getAsBoolean() && !poolReplaced(redis, pool, noConnection);
            }
            send(pipeline, batch, lane.master != null);
        } catch (RuntimeException | Error batchFailed) {
            if (lane.master != null && CallFailure.sendsAgain(batchFailed)) {
                // A Cluster master's batch that failed fast (a refused or broken connection): each call
                // goes on its own through the cluster executor, which reads the slot map again and tries
                // the master's successor, as it would have for the call unbatched.
                sendEachAlone(batch, batchFailed);
                return false;
            }
            // An Error too, rather than no answer at all. A LinkageError (a Jedis of another version)
            // every call would meet unbatched: each gets it. Any other (a stack overflow) belongs to
            // this thread: its own call gets it, the others a store failure that follows the failure mode.
            Throwable others = batchFailed instanceof Error && !(batchFailed instanceof LinkageError)
                    ? new JedisException("the batch this call went in failed on its sender's thread", batchFailed) : batchFailed;
            for (BatchedCall c : batch) {
                if (c.reply == null && c.failure == null) {
                    c.failure = c.caller == owner ? batchFailed : others;
                }
            }
            if (CallFailure.isTimeout(batchFailed)) {
                // Redis did not answer for a whole read timeout. The calls queued meanwhile would go to
                // it batch after batch, each batch waiting out the timeout again (a crowd of 600 waited
                // 2.4 s on a frozen Redis with a 400 ms timeout): they fail with this batch instead.
                for (BatchedCall c; (c = queue.poll()) != null; ) {
                    c.taken = true;
                    c.failure = batchFailed;
                    batch.add(c);
                }
            }
        } finally {
            for (BatchedCall c : batch) {
                c.done = true;
                LockSupport.unpark(c.caller);
            }
        }
        return false;
    }

    /** Has each call of {@code batch} not yet answered sent on its own by its caller, failing with {@code failure} should its budget be spent. */
    private static void sendEachAlone(List<BatchedCall> batch, Throwable failure) {
        for (BatchedCall c : batch) {
            if (c.reply == null && c.failure == null) {
                c.sendAlone = true;
                c.failure = failure;
            }
        }
    }

    /**
     * Sends {@code batch} on {@code pipeline} and sets each call's reply or error reply; on a Cluster
     * master ({@code cluster}), a MOVED or ASK reply has its call sent again on its own.
     */
    private static void send(AbstractPipeline pipeline, List<BatchedCall> batch, boolean cluster) {
        try (pipeline) {
            List<Response<Object>> replies = new ArrayList<>(batch.size());
            for (BatchedCall c : batch) {
                replies.add(c.function ? pipeline.fcall(c.name, c.keys, c.args) : pipeline.evalsha(c.name, c.keys, c.args));
            }
            pipeline.sync();
            for (int i = 0; i < batch.size(); i++) {
                BatchedCall c = batch.get(i);
                try {
                    c.reply = replies.get(i).get();
                } catch (RuntimeException errorReply) {
                    if (cluster && errorReply instanceof JedisRedirectionException) {
                        c.sendAlone = true; // the cluster executor follows it, and reads the slot map again after a MOVED
                        c.failure = errorReply; // what the call fails with should its budget be spent
                    } else {
                        c.failure = errorReply;
                    }
                }
            }
        }
    }

    /**
     * Whether calls through {@code redis} can be batched: clients known to talk to one server, a node
     * or Sentinel's master. Not any other {@link UnifiedJedis}: one built on a cluster connection
     * provider routes each call by its key but would pipeline them all to a single node.
     */
    private static boolean talksToOneServer(UnifiedJedis redis) {
        return redis instanceof RedisClient || redis instanceof RedisSentinelClient;
    }
}
