package dev.ratelimit.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Locale;

/**
 * Where the measured figures go: appended to {@code target/reliability/results-<form>.md} (and
 * printed), one section per scenario, so that RELIABILITY.md can quote real runs.
 */
final class Report {
    private Report() {
    }

    /** Appends a section {@code title} with {@code body} (Markdown). */
    static synchronized void section(String title, String body) {
        String text = "\n## " + title + " (" + Scale.form() + " form, " + Instant.now() + ")\n\n" + body.strip() + "\n";
        System.out.println(text);
        try {
            Path dir = Path.of(System.getProperty("basedir", "."), "target", "reliability");
            Files.createDirectories(dir);
            Files.writeString(dir.resolve("results-" + Scale.form() + ".md"), text, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Microseconds as milliseconds with one decimal. */
    static String ms(long micros) {
        return String.format(Locale.ROOT, "%.1f ms", micros / 1000.0);
    }

    /** Bytes as MiB with one decimal. */
    static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
    }

    static String fmt(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }
}
