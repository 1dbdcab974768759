package dev.ratelimit.servlet;

import dev.ratelimit.Clock;
import org.slf4j.Logger;

import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * Warns at most once a minute, so that a broken resolver or store under load does not flood the log;
 * the next warning says how many were suppressed. Every message has its control characters (CR, LF,
 * NEL...) and Unicode line separators replaced, so nothing from a request can forge log lines.
 */
final class ThrottledLog {
    private static final long INTERVAL_MICROS = 60_000_000L;
    private static final Pattern LINE_BREAKERS = Pattern.compile("[\\x00-\\x1F\\x7F-\\x9F\\u2028\\u2029]");

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

    /**
     * A short description of {@code error} without its message (which might quote request data), but
     * for a {@link BrokenExtension}'s, which names what broke and nothing of the request.
     */
    static String describe(Throwable error) {
        StringBuilder out = new StringBuilder(error.getClass().getName());
        if (error instanceof BrokenExtension) {
            out.append(": ").append(error.getMessage());
        }
        StackTraceElement[] frames = error.getStackTrace();
        for (int i = 0; i < Math.min(3, frames.length); i++) {
            out.append(i == 0 ? " at " : " < ").append(frames[i]);
        }
        return out.toString();
    }

    /**
     * {@code s} with every character that can break a log line replaced by {@code ?}: the ASCII and C1
     * controls (a header byte 0x85 arrives as NEL) and the Unicode line and paragraph separators.
     */
    static String clean(String s) {
        return LINE_BREAKERS.matcher(s).replaceAll("?");
    }
}
