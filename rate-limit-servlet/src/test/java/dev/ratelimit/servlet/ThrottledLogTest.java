package dev.ratelimit.servlet;

import dev.ratelimit.ManualClock;
import org.junit.jupiter.api.Test;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ThrottledLogTest {

    /** Records what would be logged. */
    static final class RecordingLogger extends LegacyAbstractLogger {
        private static final long serialVersionUID = 1L;
        final List<String> lines = new ArrayList<>();

        @Override
        protected String getFullyQualifiedCallerName() {
            return null;
        }

        @Override
        protected void handleNormalizedLoggingCall(Level level, Marker marker, String msg, Object[] args, Throwable t) {
            lines.add(level + " " + MessageFormatter.basicArrayFormat(msg, args) + (t == null ? "" : " " + t));
        }

        @Override
        public boolean isTraceEnabled() {
            return true;
        }

        @Override
        public boolean isDebugEnabled() {
            return true;
        }

        @Override
        public boolean isInfoEnabled() {
            return true;
        }

        @Override
        public boolean isWarnEnabled() {
            return true;
        }

        @Override
        public boolean isErrorEnabled() {
            return true;
        }
    }

    @Test
    void warnsAtMostOnceAMinuteAndCountsWhatItSuppressed() {
        ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
        RecordingLogger logger = new RecordingLogger();
        ThrottledLog log = new ThrottledLog(logger, clock);

        log.warn("store down");
        log.warn("store down");
        clock.advance(Duration.ofSeconds(59));
        log.warn("store down");
        clock.advance(Duration.ofSeconds(1));
        log.warn("store still down");

        assertThat(logger.lines).containsExactly("WARN store down", "WARN store still down (2 similar warnings suppressed)");
    }

    @Test
    void neverLetsRequestDataForgeALogLine() {
        RecordingLogger logger = new RecordingLogger();
        new ThrottledLog(logger, () -> 0).warn("bad key sk-1\r\nWARN forged line");

        assertThat(logger.lines).containsExactly("WARN bad key sk-1??WARN forged line");
    }

    @Test
    void neverLetsAUnicodeLineBreakForgeALogLine() {
        // A header byte 0x85 arrives as U+0085 (NEL) from an ISO-8859-1 decoding; U+2028 and U+2029
        // end lines in JSON log viewers and many terminals.
        RecordingLogger logger = new RecordingLogger();
        new ThrottledLog(logger, () -> 0).warn("a\u0085b\u2028c\u2029d\u009be");

        assertThat(logger.lines).containsExactly("WARN a?b?c?d?e");
    }

    @Test
    void describesAnExceptionWithoutItsMessage() {
        RuntimeException e = new IllegalStateException("lost connection while deciding apikey:sk-pro-secret");

        assertThat(ThrottledLog.describe(e)).startsWith("java.lang.IllegalStateException at dev.ratelimit.servlet.ThrottledLogTest")
                .doesNotContain("secret");
    }

    @Test
    void describesAnExceptionByItsFirstThreeFramesOnly() {
        RuntimeException deep = new IllegalStateException("deep");
        deep.setStackTrace(new StackTraceElement[] {frame("a"), frame("b"), frame("c"), frame("d")});
        RuntimeException shallow = new IllegalStateException("shallow");
        shallow.setStackTrace(new StackTraceElement[] {frame("a")});

        assertThat(ThrottledLog.describe(deep)).isEqualTo("java.lang.IllegalStateException at X.a(X.java:1) < X.b(X.java:1) < X.c(X.java:1)");
        assertThat(ThrottledLog.describe(shallow)).isEqualTo("java.lang.IllegalStateException at X.a(X.java:1)");
        assertThat(ThrottledLog.describe(new IllegalStateException() {
            @Override
            public synchronized Throwable fillInStackTrace() {
                return this;
            }
        })).startsWith("dev.ratelimit.servlet.ThrottledLogTest$").doesNotContain(" at ");
    }

    private static StackTraceElement frame(String method) {
        return new StackTraceElement("X", method, "X.java", 1);
    }
}
