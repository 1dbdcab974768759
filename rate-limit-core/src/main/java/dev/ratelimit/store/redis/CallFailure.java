package dev.ratelimit.store.redis;

import redis.clients.jedis.exceptions.JedisClusterOperationException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

import java.util.function.Predicate;

/**
 * What the exception of a failed call to Redis says: a connection that failed fast (sent again) or
 * timed out, no pooled connection free, a resharding under way, or the caller's own cancellation.
 * Each looks through causes (and, where Jedis hides them there, suppressed exceptions).
 */
final class CallFailure {
    private CallFailure() {
    }

    /**
     * Whether a failed call is sent once more on a fresh connection: a connection that failed fast,
     * not by a timeout (a call that timed out may still run), and not a Cluster call, which Jedis'
     * own executor already retried within its time budget (sending it again would start a second budget).
     */
    static boolean sendsAgain(Throwable e) {
        if (!isConnectionFailure(e) || isTimeout(e)) {
            return false;
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof JedisClusterOperationException) {
                return false;
            }
        }
        return true;
    }

    static boolean isConnectionFailure(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof JedisConnectionException || t instanceof JedisClusterOperationException) {
                return true;
            }
        }
        return false;
    }

    /** Jedis found no pooled connection free within its wait (commons-pool2's borrow timeout). */
    static boolean isPoolExhausted(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof java.util.NoSuchElementException && t.getMessage() != null
                    && t.getMessage().startsWith("Timeout waiting for idle object")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Redis' READONLY: the call reached a replica, not a primary: after a failover behind one endpoint
     * (a DNS name, a proxy), connections made before it still lead to the old primary, now a replica.
     * The call did not run (a script is refused before it writes), so it may be sent again.
     */
    static boolean reachedAReplica(Throwable e) {
        // Redis 7 refuses a function, or a script's write, with READONLY; Redis 6.2 fails the script with
        // an ERR that quotes it.
        return anywhere(e, t -> t instanceof JedisDataException && t.getMessage() != null
                && (t.getMessage().startsWith("READONLY") || t.getMessage().contains("-READONLY ")), 0);
    }

    /** Redis' TRYAGAIN: a multi-key call on keys that are not all on one node while their slot moves. */
    static boolean isResharding(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof JedisDataException && t.getMessage() != null && t.getMessage().startsWith("TRYAGAIN")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether {@code e} failed the call because the calling thread was interrupted: a wait for a pooled
     * connection interrupted, or a virtual thread's socket closed by its interrupt (for a cluster client
     * being created, a seed node's failure suppressed under Jedis' own). Not a failing Redis.
     */
    static boolean isCancellation(Throwable e) {
        // A socket closed by an interrupt leaves the thread's interrupt status set; an interrupted wait
        // for a connection has cleared it.
        boolean interrupted = Thread.currentThread().isInterrupted();
        return anywhere(e, t -> t instanceof InterruptedException || interrupted
                && (t instanceof java.nio.channels.ClosedByInterruptException
                || t instanceof java.net.SocketException && "Closed by interrupt".equals(t.getMessage())), 0);
    }

    /** Whether {@code e} ended a wait for a pooled connection by an interrupt: nothing was sent. */
    static boolean isInterruptedWait(Throwable e) {
        return anywhere(e, t -> t instanceof InterruptedException, 0);
    }

    /** Whether {@code e} is a read (or connect) that timed out. */
    static boolean isTimeout(Throwable e) {
        return anywhere(e, t -> t instanceof java.net.SocketTimeoutException || isClusterDeadline(t), 0);
    }

    /**
     * Whether a call that failed fast ({@link #sendsAgain}) failed on a connection that was open: Redis,
     * or something between, closed it (a restart, {@code CLIENT KILL}, a proxy's reload). Not a
     * connection refused or a host unreachable, nor one closed while it was being set up (an endpoint
     * that accepts and closes: no Redis behind it): Redis is not there to send it to. Not the
     * caller's own cancellation.
     */
    static boolean brokeAnOpenConnection(Throwable e) {
        return sendsAgain(e) && !isCancellation(e) && !anywhere(e, t -> t instanceof FreshConnectionFactory.NotConnected
                || t instanceof java.net.ConnectException || t instanceof java.net.NoRouteToHostException
                || t instanceof java.net.UnknownHostException, 0);
    }

    /**
     * Whether {@code e}, a cause or a suppressed exception, a few levels deep, is {@code what}: Jedis
     * reports a connect timeout as "Failed to connect to ..." with the timeout suppressed, not as its
     * cause, and a cluster or sentinel client it could not create as one exception with each node's
     * failure suppressed.
     */
    private static boolean anywhere(Throwable e, Predicate<Throwable> what, int depth) {
        for (Throwable t = e; t != null && depth < 8; t = t.getCause(), depth++) {
            if (what.test(t)) {
                return true;
            }
            for (Throwable suppressed : t.getSuppressed()) {
                if (anywhere(suppressed, what, depth + 1)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Jedis' cluster executor giving up because the call used its whole time budget (the read
     * timeout, see {@link Connections}) while backing off: one of its attempts may have timed out,
     * and that exception carries no cause to tell.
     */
    private static boolean isClusterDeadline(Throwable t) {
        // Only without a cause: with one, the cause chain says whether an attempt timed out.
        return t instanceof JedisClusterOperationException && t.getCause() == null && t.getMessage() != null
                && t.getMessage().startsWith("Cluster retry deadline exceeded");
    }
}
