package dev.ratelimit.store.redis;

import dev.ratelimit.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisBroadcastException;
import redis.clients.jedis.exceptions.JedisDataException;

import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CompletionException;

/**
 * The decision script as a Redis Functions library (Redis 7+): the prelude, all five algorithms and
 * the driver, registered as one function. Redis runs a library's definitions once, when it is
 * loaded, so a decision (FCALL) runs only the decision itself; an EVALSHA script defines its
 * algorithms again on every call.
 *
 * <p>The library and function names carry a hash of the code, so instances running different
 * versions during a rolling deploy each call their own. A node that lacks the library (first use,
 * {@code FUNCTION FLUSH}, a new cluster node) says "Function not found"; it is then loaded on the
 * node owning the keys (a master importing the keys' slot during a resharding, reached through ASK,
 * is not, and decides that call by EVAL: see {@link DecisionScript}). Redis before 7 (no FCALL) or an
 * ACL that denies FCALL or FUNCTION LOAD turns the library off for the store, which then sends
 * EVALSHA scripts (see {@link DecisionScript}). Turned off by a Redis without FCALL ("unknown
 * command"), it is tried again after {@link #RECHECK_MICROS}, since the server behind the store's URL
 * may have been upgraded by a failover (a trial's upgrade stayed on EVALSHA, a quarter more Redis time
 * per decision, until the application restarted); turned off by an ACL, it stays off, as every re-check
 * would add an entry to the server's ACL LOG. Only the first switch each way is logged at INFO, later
 * ones at DEBUG: a Cluster whose masters differ (a rolling upgrade) switches each minute. A server that refuses the load for the state it is
 * in (full, a read-only replica, loading) only fails that call, by the failure mode, and is asked
 * to load it again by the next.
 */
final class FunctionLibrary {
    /** How long after a load that did not help (see {@link #loadDidNotHelp}) a missing library is not loaded again. */
    static final long RELOAD_PAUSE_MICROS = 1_000_000;
    /** How long after a Redis without FCALL turned the library off FCALL is tried again: the server may have been upgraded since (a failover to Redis 7). */
    static final long RECHECK_MICROS = 60_000_000L;
    private static final Logger LOG = LoggerFactory.getLogger(FunctionLibrary.class);

    private final String source;
    private final String function;
    private final String description;
    private final Clock clock;
    /** Until when (the store's clock, µs) decisions go by EVALSHA; 0 while the library is on. */
    private volatile long offUntil;
    /** Whether the library was turned off and no FCALL sent since has succeeded; written under this. */
    private volatile boolean off;
    /** Turned off by an ACL: no re-check. Written under this. */
    private volatile boolean offForGood;
    /** How many times the library was turned off; written under this, read before a call by {@link #offs()}. */
    private volatile long offs;
    /** Switches logged at INFO so far (the first off, the first on again); later ones go to DEBUG. Guarded by this. */
    private int switchesLogged;
    /** Until when (the store's clock, µs) "Function not found" loads nothing: see {@link #loadDidNotHelp}. */
    private volatile long reloadPausedUntil;
    /** Successful loads by this store; guarded by this, read without the lock by {@link #loads()}. */
    private volatile long loads;
    /** The load under way, if any; guarded by this. */
    private CompletableFuture<Void> loading;
    /** The EVALSHA scripts of this store's limits, by the set of algorithms each uses (see {@link DecisionScript#forLimit}). */
    private final ConcurrentMap<Integer, DecisionScript> scripts = new ConcurrentHashMap<>();

    FunctionLibrary(String description, Clock clock) {
        String body = DecisionScript.library();
        String hash = DecisionScript.sha1(body).substring(0, 16);
        this.function = "ratelimit_decide_" + hash;
        this.source = "#!lua name=ratelimit_" + hash + "\n" + body
                + "redis.register_function('" + function + "', decide)\n";
        this.description = description;
        this.clock = clock;
    }

    /** Whether decisions go by FCALL: false for {@link #RECHECK_MICROS} after the server showed it cannot run the library. */
    boolean available() {
        long until = offUntil;
        if (until == 0) {
            return true;
        }
        if (offForGood) {
            return false;
        }
        long now = clock.nowMicros();
        return now >= until || until - now > RECHECK_MICROS; // a clock stepped back must not hold it off until it catches up
    }

    /** Times the library was turned off so far: read before an FCALL is sent, for {@link #succeeded}. */
    long offs() {
        return offs;
    }

    /**
     * An FCALL sent when {@link #offs()} read {@code offsBefore} succeeded: if the library was turned
     * off before it was sent, it is on again. One sent before the library was turned off says nothing
     * new (a reply of the old master, arriving after the new one refused FCALL).
     */
    void succeeded(long offsBefore) {
        if (!off) {
            return;
        }
        synchronized (this) {
            if (!off || offs != offsBefore) {
                return;
            }
            off = false;
            offUntil = 0;
            say("Redis store " + description + ": Redis Functions available again; deciding with FCALL");
        }
    }

    /** Logs a switch: at INFO the first each way, at DEBUG after (a Cluster whose masters differ switches each minute). */
    private void say(String line) {
        if (switchesLogged < 2) {
            switchesLogged++;
            LOG.info(line);
        } else {
            LOG.debug(line);
        }
    }

    /** The function to FCALL. */
    String function() {
        return function;
    }

    String source() {
        return source;
    }

    ConcurrentMap<Integer, DecisionScript> scripts() {
        return scripts;
    }

    /**
     * Handles an error reply to FCALL: loads the library where it was missing (true: call again),
     * or turns the library off where the server cannot run it (false: use EVALSHA). A server that
     * cannot load it just now (full, read-only, loading, busy: see {@link #isServerState}) fails
     * the call instead, with its refusal; so do other errors, as {@code e} itself: both are the
     * caller's to report.
     *
     * @param loadsBefore {@link #loads()} read before the failed call was sent
     */
    boolean recover(UnifiedJedis redis, String sampleKey, JedisDataException e, long loadsBefore) {
        String message = message(e);
        if (isNotFound(e)) {
            try {
                load(redis, sampleKey, loadsBefore);
                return true;
            } catch (JedisDataException refused) {
                if (isServerState(refused)) {
                    throw refused;
                }
                turnOff(refused);
                return false;
            }
        }
        // Only a refused FCALL command ("NOPERM ... to run the 'fcall' command"); a refused key
        // ("NOPERM ... keys") would refuse EVALSHA too, and must not turn the library off for good.
        if (message.startsWith("err unknown command") || message.startsWith("noperm") && message.contains("'fcall'")) {
            turnOff(e);
            return false;
        }
        throw e;
    }

    /*
     * A call redirected by ASK to a master importing its slot during a resharding finds no library there,
     * and no load reaches that master (Jedis sends FUNCTION LOAD to the masters known to own slots). Each
     * such call loaded the 40 kB library again on every master, then was made as EVAL: during a resharding,
     * one load per decision of the moving slot on every master of the cluster. So after a load that did not
     * help, "Function not found" loads nothing for RELOAD_PAUSE_MICROS, and the call is made as EVAL: at
     * most one such load a second, and a master that lost the library meanwhile decides by EVAL until then.
     */
    /** A call retried after a load, made since it was sent, still found no library where it went. */
    void loadDidNotHelp() {
        reloadPausedUntil = clock.nowMicros() + RELOAD_PAUSE_MICROS;
    }

    /** Whether a load did not help just now, so that a missing library is not loaded again yet. */
    boolean loadsPaused() {
        return clock.nowMicros() < reloadPausedUntil;
    }

    /** Loads so far; read before a call, it tells {@link #recover} whether the library was loaded since. */
    long loads() {
        return loads;
    }

    /*
     * A crowd of calls finds the library gone together (a restart, FUNCTION FLUSH, a new version's first
     * calls under load). Each loading it for itself sent 64 loads of 40 kB for 64 callers, which held
     * the pooled connections long enough that callers waiting for one got the failure mode. So a call
     * sent before a load that has since succeeded just calls again, and callers arriving while a load
     * is under way wait for that one load and share its outcome (as Connections.client() does). On
     * Cluster, a load on one master may so spare a call to another its own load: that call then finds
     * the library still missing and is made as EVAL (see DecisionScript), and the next call loads it there.
     */
    private void load(UnifiedJedis redis, String sampleKey, long loadsBefore) {
        while (true) {
            CompletableFuture<Void> attempt;
            boolean mine = false;
            synchronized (this) {
                if (loads != loadsBefore) {
                    return;
                }
                if (loading == null) {
                    loading = new CompletableFuture<>();
                    mine = true;
                }
                attempt = loading;
            }
            if (mine) {
                try {
                    send(redis, sampleKey);
                } catch (RuntimeException | Error failed) {
                    synchronized (this) {
                        loading = null;
                    }
                    // A load ended by this thread's interrupt is this thread's alone: the waiters load again.
                    attempt.completeExceptionally(CancelledAttempt.outcome(failed));
                    throw failed;
                }
                synchronized (this) {
                    loads++;
                    loading = null;
                }
                attempt.complete(null);
                return;
            }
            try {
                attempt.join();
                return;
            } catch (CompletionException e) {
                CancelledAttempt.retryOrThrow(e, false); // the loading thread was interrupted: load again, perhaps here
            }
        }
    }

    /*
     * On Cluster, Jedis sends FUNCTION LOAD to every master it knows and, if one did not answer, throws
     * a JedisBroadcastException: a JedisDataException, which recover() would take for a server that
     * cannot run the library, turning it off for good while one master is down (killed and not yet
     * failed over, or without a replica). The masters that answered loaded it: that is a load. Only a
     * master's own refusal of the load is one, and it is told as such; no master loading it is a failure.
     */
    private void send(UnifiedJedis redis, String sampleKey) {
        try {
            redis.executeCommand(new RoutedCommand(sampleKey, Protocol.Command.FUNCTION, "LOAD", "REPLACE", source));
        } catch (JedisBroadcastException e) {
            RuntimeException failure = null;
            boolean loaded = false;
            for (Object reply : e.getReplies().values()) {
                if (reply instanceof JedisDataException refused && !isServerState(refused)) {
                    throw refused;
                } else if (reply instanceof RuntimeException failed) {
                    failure = failure == null ? failed : failure;
                } else {
                    loaded = true;
                }
            }
            if (!loaded) {
                throw failure != null ? failure : e;
            }
        }
    }

    /** Turns the library off: for {@link #RECHECK_MICROS} if {@code cause} is a Redis without FCALL, else (an ACL) for good. */
    private void turnOff(JedisDataException cause) {
        boolean noFcall = message(cause).startsWith("err unknown command");
        synchronized (this) {
            // Checked and set under the lock: callers refused together must not both log the switch.
            offUntil = clock.nowMicros() + RECHECK_MICROS;
            offForGood |= !noFcall;
            if (off) {
                return; // still unavailable at a re-check (or refused together): logged when first turned off
            }
            off = true;
            offs++;
            say("Redis store " + description + ": Redis Functions unavailable (" + OutageLog.describe(cause)
                    + "); deciding with EVALSHA scripts" + (noFcall ? "" : " (FCALL is not tried again: give the store's user"
                    + " +fcall and +function|load, and restart the application, to use it)"));
        }
    }

    /**
     * Whether {@code e} refuses a write for the state the server is in, not for what it can run:
     * full under {@code noeviction} (OOM), a replica (READONLY), loading its data, busy with a
     * script, failing to save (MISCONF), at its {@code maxclients}, a Cluster or replication problem, or the store's login
     * (WRONGPASS, NOAUTH: a master added without the store's user, a password changed on one node).
     * Such a server runs the library once it is itself again: turning the library off for good would
     * leave the store on EVALSHA, a quarter more Redis time per decision, until the application restarts.
     */
    static boolean isServerState(JedisDataException e) {
        String message = message(e);
        if (message.startsWith("err max number of clients reached")) {
            return true; // the connection a load opened, refused by a server at its maxclients
        }
        String code = message.split(" ", 2)[0];
        return switch (code) {
            case "oom", "readonly", "loading", "busy", "misconf", "masterdown", "noreplicas", "clusterdown", "tryagain",
                 "wrongpass", "noauth" -> true;
            default -> false;
        };
    }

    /** Whether {@code e} is the reply of a server that lacks the library. */
    static boolean isNotFound(JedisDataException e) {
        return message(e).contains("function not found");
    }

    private static String message(JedisDataException e) {
        return e.getMessage() == null ? "" : e.getMessage().toLowerCase(Locale.ROOT);
    }
}
