package dev.ratelimit.store.redis;

import java.util.List;

/**
 * One script call queued in a {@link BatchLane}: what to send, and, written by its sender before
 * {@link #done} is set, its reply, its failure, or that its caller sends it on its own.
 */
final class BatchedCall {
    final boolean function;
    final String name;
    final List<String> keys;
    final List<String> args;
    final Thread caller = Thread.currentThread();
    /** When the call was made (System.nanoTime(), as socket timeouts are kept): a Cluster call's time budget starts then. */
    final long madeAt = System.nanoTime();
    Object reply;
    /** A RuntimeException or an Error. */
    Throwable failure;
    /**
     * Its caller sends it on its own: a Cluster call redirected, whose batch failed fast, or whose
     * master's pool a slot map renewal closed; {@link #failure} is what it fails with should its
     * budget be spent (the redirection, the batch's failure; null).
     */
    boolean sendAlone;
    /** Polled by a sender: its caller now only waits. */
    volatile boolean taken;
    volatile boolean done;

    /** FCALL of function {@code name} if {@code function}, else EVALSHA of script {@code name}. */
    BatchedCall(boolean function, String name, List<String> keys, List<String> args) {
        this.function = function;
        this.name = name;
        this.keys = keys;
        this.args = args;
    }
}
