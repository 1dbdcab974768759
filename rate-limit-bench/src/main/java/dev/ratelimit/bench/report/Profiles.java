package dev.ratelimit.bench.report;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Where the time goes in our hot path: JFR execution samples (JMH's {@code -prof jfr}) summarised as
 * the hottest lines (the top frame of each sample) and the share of samples inside each of our
 * methods (inclusive).
 */
final class Profiles {
    private static final int TOP = 12;

    private Profiles() {
    }

    /**
     * The section, if the run recorded profiles or the script said why it could not ({@code profile} in
     * {@code skipped.txt}): a profile that failed is said, never left out silently.
     */
    static void write(Markdown md, Results results) {
        Path dir = results.dir().resolve("profiles");
        List<Path> recordings = List.of();
        if (Files.isDirectory(dir)) {
            try (Stream<Path> files = Files.walk(dir)) {
                recordings = files.filter(f -> f.toString().endsWith(".jfr")).sorted().toList();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        Optional<String> skipped = results.skipped("profile");
        if (recordings.isEmpty()) {
            skipped.ifPresent(reason -> md.heading(2, "Profiles of our hot path").paragraph("Not run: " + reason));
            return;
        }
        md.heading(2, "Profiles of our hot path");
        md.paragraph("JFR execution samples of our token bucket (JMH `-prof jfr`, 1 thread). JFR samples at safepoint-free "
                + "points but attributes a stalled load to the instruction waiting for it, so a cache miss shows on the line "
                + "that first touches the missed memory.");
        skipped.ifPresent(reason -> md.paragraph("Not every profile was recorded: " + reason + "."));
        for (Path recording : recordings) {
            write(md, dir.relativize(recording).getName(0).toString(), recording);
        }
    }

    private static void write(Markdown md, String name, Path recording) {
        Map<String, Integer> self = new HashMap<>();
        Map<String, Integer> inclusive = new HashMap<>();
        int samples = 0;
        try (RecordingFile file = new RecordingFile(recording)) {
            while (file.hasMoreEvents()) {
                RecordedEvent event = file.readEvent();
                if (!event.getEventType().getName().equals("jdk.ExecutionSample")) {
                    continue;
                }
                RecordedStackTrace stack = event.getStackTrace();
                if (stack == null || stack.getFrames().isEmpty() || !onBenchmarkThread(stack)) {
                    continue;
                }
                samples++;
                RecordedFrame top = stack.getFrames().get(0);
                self.merge(method(top) + ":" + top.getLineNumber(), 1, Integer::sum);
                Set<String> seen = new HashSet<>();
                for (RecordedFrame frame : stack.getFrames()) {
                    String m = method(frame);
                    if (m.startsWith("dev.ratelimit.") && !m.startsWith("dev.ratelimit.bench.")
                            && !m.equals("dev.ratelimit.RateLimiter.tryAcquire") && seen.add(m)) {
                        inclusive.merge(m, 1, Integer::sum);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + recording, e);
        }
        md.heading(3, name + " (" + samples + " samples)");
        if (samples == 0) {
            return;
        }
        int total = samples;
        Markdown.Table hot = new Markdown.Table(List.of("Hottest lines (self)", "Share"));
        self.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed()).limit(TOP)
                .forEach(e -> hot.row(List.of("`" + e.getKey() + "`", share(e.getValue(), total))));
        md.table(hot);
        Markdown.Table ours = new Markdown.Table(List.of("Our methods (inclusive)", "Share"));
        inclusive.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed()).limit(TOP)
                .forEach(e -> ours.row(List.of("`" + e.getKey() + "`", share(e.getValue(), total))));
        md.table(ours);
    }

    /** Samples of the measured loop only (JMH's generated stub), not of set-up or of other threads. */
    private static boolean onBenchmarkThread(RecordedStackTrace stack) {
        for (RecordedFrame frame : stack.getFrames()) {
            if (frame.getMethod().getName().endsWith("_jmhStub")) {
                return true;
            }
        }
        return false;
    }

    /** {@code package.Type.method}, without the {@code java.lang.} prefix. */
    private static String method(RecordedFrame frame) {
        String type = frame.getMethod().getType().getName();
        if (type.startsWith("java.lang.")) {
            type = type.substring("java.lang.".length());
        }
        return type + "." + frame.getMethod().getName();
    }

    private static String share(int n, int total) {
        return String.format(Locale.ROOT, "%.1f%%", 100.0 * n / total);
    }
}
