package dev.ratelimit.servlet;

import dev.ratelimit.Clock;
import org.slf4j.Logger;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Warns at most once a minute, so that a broken resolver or store under load does not flood the log;
 * the next warning says how many were suppressed. Every message has its control characters (CR, LF...)
 * replaced, so nothing from a request can forge log lines.
 */
final class ThrottledLog {
    private static final long INTERVAL_MICROS = 60_000_000L;

    private final Logger log;
    private final Clock clock;
    private final AtomicLong nextMicros = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong suppressed = new AtomicLong();

    ThrottledLog(Logger log, Clock clock) {
        this.log = log;
        this.clock = clock;
    }

    void warn(String message) {
        long now = clock.nowMicros();
        long next = nextMicros.get();
        if (now >= next && nextMicros.compareAndSet(next, now + INTERVAL_MICROS)) {
            long dropped = suppressed.getAndSet(0);
            log.warn(clean(message) + (dropped > 0 ? " (" + dropped + " similar warnings suppressed)" : ""));
        } else {
            suppressed.incrementAndGet();
        }
    }

    /** A short description of {@code error} without its message (which might quote request data). */
    static String describe(Throwable error) {
        StringBuilder out = new StringBuilder(error.getClass().getName());
        StackTraceElement[] frames = error.getStackTrace();
        for (int i = 0; i < Math.min(3, frames.length); i++) {
            out.append(i == 0 ? " at " : " < ").append(frames[i]);
        }
        return out.toString();
    }

    static String clean(String s) {
        return s.replaceAll("\\p{Cntrl}", "?");
    }
}
