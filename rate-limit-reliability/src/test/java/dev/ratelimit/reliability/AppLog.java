package dev.ratelimit.reliability;

import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The log of every app instance in this JVM: slf4j-simple writes each line to one file (the pom sets
 * {@code org.slf4j.simpleLogger.logFile} and a format with an ISO date, the thread and the logger
 * name), flushed per line. A test marks where the file ends, acts, then reads what was logged since.
 */
final class AppLog {
    /**
     * The start of every line the logger writes: date and time, [thread], level, logger name, " - ",
     * then anything but a CR (lines are split at LF). A line that does not look like this was not
     * written by the logger as one line. Unicode line separators (NEL, U+2028/9) are not line ends
     * here: our own log lines never hold them, but Jetty's parser warnings quote a request target raw.
     */
    static final Pattern LINE = Pattern.compile(
            "^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3} \\[[^\\]\\r\\n]*\\] (TRACE|DEBUG|INFO|WARN|ERROR) [\\w.$]+ - [^\\r]*");

    static {
        // slf4j-simple truncates its file when the first logger is made: make it before any mark.
        LoggerFactory.getLogger(AppLog.class);
    }

    private AppLog() {
    }

    static Path file() {
        String name = System.getProperty("org.slf4j.simpleLogger.logFile");
        if (name == null || name.startsWith("System.")) {
            throw new IllegalStateException("org.slf4j.simpleLogger.logFile must name a file (set in the module's pom)");
        }
        return Path.of(name);
    }

    /** Where the log ends now. */
    static long mark() {
        try {
            Path f = file();
            return Files.exists(f) ? Files.size(f) : 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What was logged after {@code mark}, as text. */
    static String textSince(long mark) {
        try (RandomAccessFile in = new RandomAccessFile(file().toFile(), "r")) {
            long length = in.length();
            if (length <= mark) {
                return "";
            }
            byte[] bytes = new byte[(int) (length - mark)];
            in.seek(mark);
            in.readFully(bytes);
            return new String(bytes, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The instance a line of an app's request thread came from: its Jetty thread pool ({@code qtp<id>}), or "" for others. */
    static String pool(String line) {
        java.util.regex.Matcher m = POOL.matcher(line);
        return m.find() ? m.group(1) : "";
    }

    private static final Pattern POOL = Pattern.compile("^\\S+ \\[(qtp\\d+)-\\d+\\]");

    /** The lines logged after {@code mark} (a line is what ends in LF; a lone CR does not end one). */
    static List<String> linesSince(long mark) {
        String text = textSince(mark);
        return text.isEmpty() ? List.of() : List.of(text.split("\n"));
    }
}
