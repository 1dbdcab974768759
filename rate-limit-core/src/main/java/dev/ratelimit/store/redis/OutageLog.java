package dev.ratelimit.store.redis;

import dev.ratelimit.FailureMode;
import dev.ratelimit.StoreHealth;
import org.slf4j.Logger;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The store's log lines about Redis' health: one warning when an outage starts, one when the circuit
 * breaker opens, one info line when Redis answers again; never one per request, even when health
 * flaps. Health can flap on Redis Cluster with a cluster client passed to the store (one breaker for
 * all masters): while one master is down its keys fail and the other masters' succeed, and every
 * success ends the outage that the next failure starts again (the reliability suite saw 45 such
 * outages in 2.5 s of failover, two lines each, before a cluster the store creates had one breaker
 * per master). So an outage that starts within
 * {@link #QUIET_MICROS} of the last one logged is not logged, nor its end; the next outage logged
 * says how many were left out. The circuit breaker opening is logged (it changes every decision for
 * a whole open period), with the cause if the outage's start was left out, and then the end of that
 * outage too; such an outage is not counted as left out. Only when the outage's start was left out
 * and {@value #MAX_OPENINGS_LOGGED} openings were logged already in the minute since the first of
 * them is the opening left out too, with its end, and counted: a Redis at its {@code maxmemory}
 * under {@code noeviction} answers some calls and refuses others, and its breaker opened and closed
 * about once a second, two lines each (76 a minute in a trial), for as long as Redis stayed full.
 * Such an outage that lasts (its probes fail: no change of health) has its opening logged at its
 * first failure once that minute is over, and so has the start of an outage left out that lasts a
 * minute after the last start logged without opening a breaker. An outage's opening is said once:
 * on a Redis Cluster store (a breaker per master) health can go from CIRCUIT_OPEN to DEGRADED and
 * back within one outage, and each re-opening was a line (180 in 3 minutes in a review's test).
 *
 * <p>While an outage that was logged goes on, a failure of another kind than the one last said (a
 * timeout, then a replica's READONLY; a refused connection, then WRONGPASS) is said too: the first
 * at once, later ones at most once a minute. An outage's first cause may not be why it lasts.
 *
 * <p>An outage started by a failed connection check ({@link CheckFailed}) is not logged here: the
 * check's caller is told why, and says it (the filter and the example app log it once, after their
 * start-up banner). It does not silence the next outage's start; the breaker opening during it says
 * its cause; its end is logged as any other's. But one that starts within a minute of the last such
 * outage whose end was to be logged is left out and counted as any brief outage is: a readiness probe
 * checking a flapping Redis every few seconds started an outage at each failed check, and each had
 * its end logged, and its opening, without bound.
 */
final class OutageLog {
    /** A minute: at most one "is failing" line per minute per store. */
    static final long QUIET_MICROS = 60_000_000L;
    /** Breaker openings logged at most in the minute from the first of them, unless their outages' starts were logged. */
    static final int MAX_OPENINGS_LOGGED = 5;
    /** The longest line {@link #describe} makes. */
    static final int MAX_LINE = 300;
    /** A Redis error code quoted in a script's error (Redis 6.2: "... @user_script: 153: -READONLY You ..."). */
    private static final Pattern QUOTED_CODE = Pattern.compile(": -([A-Z][A-Z_]{2,}) ");
    /** A Redis error code leading a message ("READONLY You can't write ..."). */
    private static final Pattern LEADING_CODE = Pattern.compile("([A-Z][A-Z_]{2,})(?: |$)");

    /** Where the lines go: the store's logger in production, a list in tests. */
    interface Lines {
        void warn(String line);

        void info(String line);

        /** Lines written to {@code logger}, warnings as WARN and the end of an outage as INFO. */
        static Lines to(Logger logger) {
            return new Lines() {
                @Override
                public void warn(String line) {
                    logger.warn(line);
                }

                @Override
                public void info(String line) {
                    logger.info(line);
                }
            };
        }
    }

    /** Why a connection check failed, as the cause of the outage it starts: its caller has the exception and logs it. */
    static final class CheckFailed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        CheckFailed(Throwable cause) {
            super(cause.getMessage(), cause, false, false);
        }
    }

    private final Lines lines;
    private final String description;
    private final FailureMode mode;
    private long lastLoggedStart;
    private boolean anyLogged;
    private boolean outageLogged;
    /** The outage under way was started by a failed connection check, whose caller logged it, not this log. */
    private boolean startLeftToCaller;
    /** When the last outage started by a failed check, and not left out, started; meaningful only if {@link #anyLeftToCaller}. */
    private long lastStartLeftToCaller;
    private boolean anyLeftToCaller;
    /** The outage under way was started by a failed check and left out (within a minute of the last one left to the caller). */
    private boolean checkLeftOut;
    private int unlogged;
    /** Of the {@link #unlogged} outages, how many opened the circuit breaker. */
    private int unloggedOpenings;
    /**
     * The cause of the left-out opening of the outage under way, whose start was left out too; null when
     * there is none. Said at the first failure a minute on, should the outage last: a breaker whose
     * probe fails stays open without another change of health, and that outage would not be logged at all.
     */
    private Throwable openingLeftOut;
    /** An opening of the outage under way was left out and counted (once per outage). */
    private boolean openingCounted;
    /** The opening of the outage under way was said: a re-opening (CIRCUIT_OPEN -> DEGRADED -> CIRCUIT_OPEN) is not. */
    private boolean openingSaid;
    /** The store's health as last told: an outage is under way unless UP. */
    private StoreHealth health = StoreHealth.UP;
    /** When the minute of {@link #openingsLogged} began. */
    private long openingsSince;
    private int openingsLogged;
    private boolean usedAfterCloseLogged;
    /** The kind of failure ({@link #kindOf}) last said in the outage logged and under way; null when none is. */
    private String lastKind;
    /** When a change of kind was last said in this outage; meaningful only if {@link #changeSaid}. */
    private long lastChangeAt;
    private boolean changeSaid;

    OutageLog(Lines lines, String description, FailureMode mode) {
        this.lines = lines;
        this.description = description;
        this.mode = mode;
    }

    /**
     * A limiter was asked to decide after the store was closed: said once per store, since it is a
     * mistake in the application's shutdown order, not an outage that ends.
     */
    synchronized void usedAfterClose() {
        if (!usedAfterCloseLogged) {
            usedAfterCloseLogged = true;
            lines.warn("Redis store " + description + " was used after close(): its limiters decide by failure mode " + mode
                    + " from now on, without Redis; close the store after whatever decides with it");
        }
    }

    /** Health went from {@code previous} to {@code current} at {@code now} (the store's clock), because of {@code cause}. */
    synchronized void changed(StoreHealth previous, StoreHealth current, Throwable cause, long now) {
        health = current;
        if (previous == StoreHealth.UP) {
            checkLeftOut = false;
            openingLeftOut = null;
            openingCounted = false;
            openingSaid = false;
        }
        if (previous == StoreHealth.CIRCUIT_OPEN && current == StoreHealth.DEGRADED) {
            openingLeftOut = null; // no breaker open to say so of (still counted once)
        }
        if (previous == StoreHealth.UP && cause instanceof CheckFailed) {
            if (anyLeftToCaller && withinAMinute(now, lastStartLeftToCaller)) {
                outageLogged = false; // a probe checking a flapping Redis: left out, as a brief outage
                checkLeftOut = true;
                unlogged++;
                return;
            }
            // Its start is the check's caller's to log, and uses up no quiet minute of other outages; its end is logged here.
            anyLeftToCaller = true;
            lastStartLeftToCaller = now;
            outageLogged = true;
            startLeftToCaller = true;
            saidKind(cause);
        } else if (previous == StoreHealth.UP) {
            if (anyLogged && withinAMinute(now, lastLoggedStart)) {
                outageLogged = false;
                unlogged++;
                return;
            }
            logStart(cause, now);
        } else if (current == StoreHealth.CIRCUIT_OPEN) {
            if (outageLogged && openingSaid) {
                return; // a re-opening of an outage whose opening was said: failed() says a change of kind
            }
            if (!outageLogged && openingsLogged >= MAX_OPENINGS_LOGGED && withinAMinute(now, openingsSince)) {
                // A breaker opening and closing again and again: left out with its outage, counted once per outage.
                if (!openingCounted) {
                    unloggedOpenings++;
                    openingCounted = true;
                }
                openingLeftOut = cause == null ? NO_CAUSE : cause;
                return;
            }
            logOpening(cause, now, "");
        } else if (current == StoreHealth.UP) {
            openingLeftOut = null;
            if (outageLogged) {
                outageLogged = false;
                startLeftToCaller = false;
                lastKind = null;
                lines.info("Redis store " + description + " has recovered; decisions are shared again");
            }
        }
    }

    /** The cause of an opening left out that had none: said as "no cause". */
    private static final Throwable NO_CAUSE = new Throwable("no cause");

    /** Says the outage under way started (or goes on, logged late) at {@code now}, because of {@code cause}. */
    private void logStart(Throwable cause, long now) {
        anyLogged = true;
        lastLoggedStart = now;
        outageLogged = true;
        lines.warn("Redis store " + description + " is failing; deciding by failure mode " + mode + " until it recovers: "
                + describe(cause) + (unlogged == 0 ? "" : " (" + unlogged + " brief outages since the last one logged"
                + (unloggedOpenings == 0 ? "" : ", " + unloggedOpenings + " of them with the circuit breaker open") + ")"));
        unlogged = 0;
        unloggedOpenings = 0;
        saidKind(cause);
    }

    /** The outage under way, left out so far, is logged after all: no longer counted as left out. */
    private void loggedAfterAll() {
        unlogged--;
        if (openingCounted) {
            unloggedOpenings--;
            openingCounted = false;
        }
        openingLeftOut = null;
    }

    /** Says the breaker opened at {@code now}, because of {@code cause}, ending the line with {@code more}. */
    private void logOpening(Throwable cause, long now, String more) {
        if (openingsLogged == 0 || !withinAMinute(now, openingsSince)) {
            openingsSince = now;
            openingsLogged = 0;
        }
        openingsLogged++;
        // An outage whose start was left out is logged after all: not counted as left out, and its cause said here.
        // So is the cause of one whose start a failed connection check left to its caller.
        String why = outageLogged && !startLeftToCaller ? "" : ": " + describe(cause == NO_CAUSE ? null : cause);
        if (!outageLogged) {
            loggedAfterAll();
            saidKind(cause == NO_CAUSE ? null : cause);
        }
        outageLogged = true;
        openingSaid = true;
        startLeftToCaller = false;
        lines.warn("Redis store " + description + " has its circuit breaker open; Redis is probed again after the open period" + why + more);
    }

    /**
     * A call failed at {@code now} (the store's clock) with {@code cause}: said if an outage logged is
     * under way and the failure is of another kind than the last said in it (the first such change at
     * once, later ones at most once a minute; a clock stepped back a minute or more does not silence
     * the next, as in {@link #changed}).
     */
    synchronized void failed(Throwable cause, long now) {
        if (cause == null) {
            return;
        }
        if (!outageLogged) {
            if (openingLeftOut != null && health == StoreHealth.CIRCUIT_OPEN && !withinAMinute(now, openingsSince)) {
                // Not a breaker flapping after all: an outage that lasts. Its opening's cause, and this failure's if
                // of another kind, on one line: the next failure of the same kind then says nothing more.
                boolean changedKind = openingLeftOut == NO_CAUSE || !kindOf(cause).equals(kindOf(openingLeftOut));
                logOpening(openingLeftOut, now, changedKind ? "; now: " + describe(cause) : "");
                saidKind(cause);
            } else if (health != StoreHealth.UP && !withinAMinute(now, lastLoggedStart)
                    && !(checkLeftOut && withinAMinute(now, lastStartLeftToCaller))) {
                // An outage left out (within a minute of the last one logged, or, started by a failed check, of the last such)
                // that lasts without opening a breaker (a Cluster store whose masters fail in turn stays
                // DEGRADED): said now, a minute on.
                loggedAfterAll();
                logStart(cause, now);
            }
            return;
        }
        String kind = kindOf(cause);
        if (kind.equals(lastKind)
                || changeSaid && withinAMinute(now, lastChangeAt)) {
            return;
        }
        lastKind = kind;
        lastChangeAt = now;
        changeSaid = true;
        lines.warn("Redis store " + description + " is still failing, now: " + describe(cause));
    }

    /**
     * Whether {@code now} is less than a minute from {@code then}, either way. Either way: callers read
     * the clock before they report (a failing call's time is read before the breakers are told), so
     * a reading a little earlier than the last is a racing caller's. Only one a minute or more earlier
     * is a clock stepped back (NTP, a restored VM), which must not silence the log until it catches up.
     */
    private static boolean withinAMinute(long now, long then) {
        return Math.abs(now - then) < QUIET_MICROS;
    }

    private void saidKind(Throwable cause) {
        lastKind = cause == null ? null : kindOf(cause);
        changeSaid = false;
    }

    /**
     * What kind of failure {@code cause} is: its root cause's class, with, for Jedis' "Failed to
     * connect ..." and "Could not initialize cluster slots cache.", the root cause's class of the first
     * failure suppressed under it, and so on down (a Cluster client's nests two deep; only the last says
     * whether the connection was refused or timed out, or the password refused; other suppressed
     * failures are not the cause, such as the one a broken pipeline's close adds), and the Redis error
     * code it carries (or else the first the failures under it carry), if any
     * ({@code READONLY}, {@code OOM}, {@code WRONGPASS}; from Redis 6.2 a script's {@code ERR} quotes
     * the code of the call that failed in it: that one).
     */
    static String kindOf(Throwable cause) {
        Throwable root = rootOf(cause);
        StringBuilder kind = new StringBuilder(root.getClass().getSimpleName());
        String code = codeOf(root);
        // A Cluster client's failure nests two deep: "Could not initialize ..." over "Failed to connect ..."
        // over the refused connection or the timeout.
        Throwable why = root;
        for (int depth = 0; depth < 3 && saysWhyInSuppressed(why); depth++) {
            why = rootOf(why.getSuppressed()[0]);
            kind.append('/').append(why.getClass().getSimpleName());
            code = code.isEmpty() ? codeOf(why) : code;
        }
        return kind + (code.isEmpty() ? "" : " " + code);
    }

    /** The Redis error code {@code failure}'s message carries, if any; empty if none. */
    private static String codeOf(Throwable failure) {
        String message = failure.getMessage() == null ? "" : failure.getMessage();
        Matcher quoted = QUOTED_CODE.matcher(message);
        Matcher leading = LEADING_CODE.matcher(message);
        return quoted.find() ? quoted.group(1) : leading.lookingAt() ? leading.group(1) : "";
    }

    /** Whether {@code failure} is one of Jedis' that say why only in the first failure suppressed under them. */
    private static boolean saysWhyInSuppressed(Throwable failure) {
        String message = failure.getMessage();
        return failure.getSuppressed().length > 0 && message != null
                && (message.startsWith("Failed to connect") || message.startsWith("Could not initialize cluster slots cache"));
    }

    /**
     * An exception as one log-safe line: no CR/LF, at most {@value #MAX_LINE} characters. Where it is
     * longer, the outer message is shortened first: the root cause says why (a TLS handshake's outer
     * message repeats the whole chain, and the root's "unable to find valid certification path" was cut).
     */
    static String describe(Throwable cause) {
        if (cause == null) {
            return "no cause";
        }
        if (cause instanceof FreshConnectionFactory.NotConnected && cause.getCause() != null) {
            cause = cause.getCause(); // the store's marker of a connection never set up: Jedis' own says it
        }
        String outer = cause.getClass().getSimpleName() + ": " + cause.getMessage();
        Throwable root = rootOf(cause);
        String why = causedBy(cause);
        if (root.getSuppressed().length > 0) {
            // Jedis' "Could not initialize cluster slots cache." says why only in the first node's
            // failure, which it adds as suppressed (a wrong password: WRONGPASS; not a cluster: ERR).
            Throwable first = root.getSuppressed()[0];
            String firstWhy = causedBy(first);
            Throwable firstRoot = rootOf(first);
            if (saysWhyInSuppressed(firstRoot)) {
                // A Cluster seed node's "Failed to connect to ..." says why in a failure suppressed under it in turn.
                Throwable under = firstRoot.getSuppressed()[0];
                firstWhy += " (" + under.getClass().getSimpleName() + ": " + under.getMessage() + causedBy(under) + ")";
            }
            why += " (first failure: " + first.getClass().getSimpleName() + ": " + first.getMessage() + firstWhy + ")";
        }
        outer = oneLine(outer);
        why = oneLine(why);
        if (outer.length() + why.length() > MAX_LINE && why.length() <= MAX_LINE / 2) {
            outer = outer.substring(0, MAX_LINE - why.length() - 3) + "...";
        }
        String text = outer + why;
        return text.length() > MAX_LINE ? text.substring(0, MAX_LINE - 3) + "..." : text;
    }

    /** {@code cause}'s root cause, as " (caused by ...)"; empty when it has none. */
    private static String causedBy(Throwable cause) {
        Throwable root = rootOf(cause);
        return root == cause ? "" : " (caused by " + root.getClass().getSimpleName() + ": " + root.getMessage() + ")";
    }

    private static String oneLine(String text) {
        return text.replaceAll("[\\r\\n\\p{Cntrl}]", " ");
    }

    private static Throwable rootOf(Throwable cause) {
        Throwable root = cause;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root;
    }
}
