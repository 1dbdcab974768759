package dev.ratelimit.store.redis;

import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

/**
 * Lets concurrent decisions share round trips to one Redis node: the network round trip and the
 * read and write system calls on both sides, which on a busy Redis cost more than the script. Each
 * decision is still decided atomically by Redis. FCALLs of one library that go in one batch go as one
 * call of the library's batch function (see {@code lua/batch.lua}), which decides them one after the
 * other and answers each its own reply or error reply: Redis then pays its per-command work and reads
 * its clock once for the batch, not once per decision. EVALSHA scripts (Redis before 7) go as one
 * call each in one pipeline.
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
 * only. Redis Cluster clients (and any client not known to talk to one server) are not batched:
 * their calls go one by one, each to the node owning its keys.
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

    private final boolean enabled;
    private final Predicate<UnifiedJedis> batchable;
    private final ConcurrentLinkedQueue<Call> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger senders = new AtomicInteger();

    CallBatcher(boolean enabled) {
        this(enabled, CallBatcher::talksToOneServer);
    }

    /** @param batchable whether calls through a client may be batched (tests batch through a fake client) */
    CallBatcher(boolean enabled, Predicate<UnifiedJedis> batchable) {
        this.enabled = enabled;
        this.batchable = batchable;
    }

    /** EVALSHA {@code sha1} with {@code keys} and {@code args}, in a batch when that is possible. */
    Object evalsha(UnifiedJedis redis, String sha1, List<String> keys, List<String> args) {
        if (!enabled || !batchable.test(redis)) {
            return redis.evalsha(sha1, keys, args);
        }
        return call(redis, new Call(sha1, null, keys, args));
    }

    /**
     * FCALL {@code function} with {@code keys} and {@code args}, in a batch when that is possible;
     * with other calls of the same {@code batchFunction}, as a part of one call of it.
     */
    Object fcall(UnifiedJedis redis, String function, String batchFunction, List<String> keys, List<String> args) {
        if (!enabled || !batchable.test(redis)) {
            return redis.fcall(function, keys, args);
        }
        return call(redis, new Call(function, batchFunction, keys, args));
    }

    private Object call(UnifiedJedis redis, Call call) {
        queue.offer(call);
        boolean interrupted = false;
        while (!call.done) {
            int n;
            // Only a caller whose call is still queued sends; one whose call a sender took waits for
            // that sender (sending empty batches instead would spin).
            if (!call.taken && (n = senders.get()) < MAX_SENDERS && senders.compareAndSet(n, n + 1)) {
                try {
                    send(redis);
                } finally {
                    senders.decrementAndGet();
                    // A caller that queued while this one was sending may be parked: wake the oldest
                    // so it sends the next batch (if it is already running, its next park returns at once).
                    Call next = queue.peek();
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
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (call.failure instanceof RuntimeException e) {
            throw e;
        }
        if (call.failure instanceof Error e) {
            throw e; // as an unbatched call would have: the store decides what an Error means
        }
        return call.reply;
    }

    /** Sends the queued calls (up to {@link #MAX_BATCH}) as one pipeline and completes each. */
    private void send(UnifiedJedis redis) {
        List<Call> batch = new ArrayList<>(Math.min(MAX_BATCH, 16));
        for (Call c; batch.size() < MAX_BATCH && (c = queue.poll()) != null; ) {
            c.taken = true;
            batch.add(c);
        }
        if (batch.isEmpty()) {
            return;
        }
        try (AbstractPipeline pipeline = redis.pipelined()) {
            String combinedName = combinedName(batch);
            List<Call> combined = new ArrayList<>(combinedName == null ? 0 : batch.size());
            List<Response<Object>> replies = new ArrayList<>(batch.size());
            for (Call c : batch) {
                if (combinedName != null && combinedName.equals(c.batchName)) {
                    combined.add(c);
                    replies.add(null);
                } else {
                    replies.add(c.batchName != null ? pipeline.fcall(c.name, c.keys, c.args) : pipeline.evalsha(c.name, c.keys, c.args));
                }
            }
            Response<Object> combinedReply = combined.isEmpty() ? null : combine(pipeline, combined);
            pipeline.sync();
            if (combinedReply != null) {
                complete(combined, combinedReply);
            }
            for (int i = 0; i < batch.size(); i++) {
                Call c = batch.get(i);
                if (replies.get(i) != null) {
                    try {
                        c.reply = replies.get(i).get();
                    } catch (RuntimeException errorReply) {
                        c.failure = errorReply;
                    }
                }
            }
        } catch (RuntimeException | Error batchFailed) {
            // An Error too, rather than no answer at all. A LinkageError (a Jedis of another version)
            // every call would meet unbatched: each gets it. Any other (a stack overflow) belongs to
            // this thread: its own call gets it, the others a store failure that follows the failure mode.
            Throwable others = batchFailed instanceof Error && !(batchFailed instanceof LinkageError)
                    ? new JedisException("the batch this call went in failed on its sender's thread", batchFailed) : batchFailed;
            for (Call c : batch) {
                if (c.reply == null && c.failure == null) {
                    c.failure = c.caller == Thread.currentThread() ? batchFailed : others;
                }
            }
            if (RedisRateLimiter.isTimeout(batchFailed)) {
                // Redis did not answer for a whole read timeout. The calls queued meanwhile would go to
                // it batch after batch, each batch waiting out the timeout again (a crowd of 600 waited
                // 2.4 s on a frozen Redis with a 400 ms timeout): they fail with this batch instead.
                for (Call c; (c = queue.poll()) != null; ) {
                    c.taken = true;
                    c.failure = batchFailed;
                    batch.add(c);
                }
            }
        } finally {
            for (Call c : batch) {
                c.done = true;
                LockSupport.unpark(c.caller);
            }
        }
    }

    /**
     * The batch function whose FCALLs in {@code batch} go as one call of it: the first FCALL's, if
     * two or more share it (a lone FCALL goes as itself), else null. Usually the whole batch's.
     */
    private static String combinedName(List<Call> batch) {
        String batchName = null;
        int calls = 0;
        for (Call c : batch) {
            if (c.batchName != null && (batchName == null || batchName.equals(c.batchName))) {
                batchName = c.batchName;
                calls++;
            }
        }
        return calls < 2 ? null : batchName;
    }

    /** Queues one call of the batch function deciding {@code calls}: see {@code lua/batch.lua}. */
    private static Response<Object> combine(AbstractPipeline pipeline, List<Call> calls) {
        List<String> keys = new ArrayList<>(calls.size() * 2);
        List<String> args = new ArrayList<>(calls.size() * 9);
        for (Call c : calls) {
            keys.addAll(c.keys);
            args.add(Integer.toString(c.keys.size()));
            args.add(Integer.toString(c.args.size()));
            args.addAll(c.args);
        }
        return pipeline.fcall(calls.get(0).batchName, keys, args);
    }

    /**
     * Gives each of {@code calls} its part of the batch function's reply: its own reply or error
     * reply. An error reply to the whole call (the library missing, a full or read-only server) is
     * each call's, as it would have been had each gone alone.
     */
    private static void complete(List<Call> calls, Response<Object> combinedReply) {
        Object reply;
        try {
            reply = combinedReply.get();
        } catch (RuntimeException errorReply) {
            calls.forEach(c -> c.failure = errorReply);
            return;
        }
        if (!(reply instanceof List<?> parts) || parts.size() != calls.size()) {
            IllegalStateException unexpected = new IllegalStateException("unexpected reply from the batch function: " + reply);
            calls.forEach(c -> c.failure = unexpected);
            return;
        }
        for (int i = 0; i < calls.size(); i++) {
            Object part = parts.get(i);
            if (part instanceof RuntimeException errorReply) {
                calls.get(i).failure = errorReply; // Jedis hands an error within an array over as its exception
            } else {
                calls.get(i).reply = part;
            }
        }
    }

    /** One queued script call; written by its sender before {@code done} is set. */
    private static final class Call {
        final String name;
        /** The batch function of an FCALL, null for an EVALSHA. */
        final String batchName;
        final List<String> keys;
        final List<String> args;
        final Thread caller = Thread.currentThread();
        Object reply;
        /** A RuntimeException or an Error. */
        Throwable failure;
        /** Polled by a sender: its caller now only waits. */
        volatile boolean taken;
        volatile boolean done;

        /** FCALL of function {@code name} if it has a {@code batchName}, else EVALSHA of script {@code name}. */
        Call(String name, String batchName, List<String> keys, List<String> args) {
            this.name = name;
            this.batchName = batchName;
            this.keys = keys;
            this.args = args;
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
