package dev.ratelimit.example.artifacts;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.awaitility.Awaitility.await;

/**
 * The packaged executable jar run as a real child process ({@code java -jar target/rate-limit-example.jar}),
 * its standard output and error written to files (reading the pipes races with the JDK draining them
 * when the process exits).
 */
final class JarProcess implements AutoCloseable {
    static final Path JAR = Path.of("target", "rate-limit-example.jar");
    private static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)");

    private final Process process;
    private final Path out;
    private final Path err;

    private JarProcess(Process process, Path out, Path err) {
        this.process = process;
        this.out = out;
        this.err = err;
    }

    /** Starts {@code java -jar} with {@code args}, and {@code env} over this process' environment. */
    static JarProcess start(Map<String, String> env, String... args) throws IOException {
        if (!Files.isRegularFile(JAR)) {
            throw new IllegalStateException(JAR.toAbsolutePath() + " is missing: run the package phase first (mvn verify does)");
        }
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m", "-XX:TieredStopAtLevel=1", "-jar", JAR.toString()));
        command.addAll(List.of(args));
        Path dir = Files.createDirectories(Path.of("target", "jar-runs"));
        Path out = Files.createTempFile(dir, "out-", ".log");
        Path err = Files.createTempFile(dir, "err-", ".log");
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().keySet().removeIf(k -> k.equals("PORT") || k.equals("HOST") || k.equals("RATE_LIMIT_HOST") || k.equals("REDIS_URL")
                || k.startsWith("RATE_LIMIT_") || k.equals("SHUTDOWN_TIMEOUT"));
        builder.environment().putAll(env);
        return new JarProcess(builder.start(), out, err);
    }

    /** Waits for the start-up log and returns the port it names. */
    int awaitListening() {
        await().atMost(Duration.ofSeconds(30)).until(() -> port() > 0 || !process.isAlive());
        if (port() <= 0) {
            throw new IllegalStateException("the jar did not start; stdout " + out() + ", stderr " + err());
        }
        return port();
    }

    private int port() {
        for (String line : out()) {
            Matcher m = LISTENING.matcher(line);
            if (m.find()) {
                return Integer.parseInt(m.group(1));
            }
        }
        return -1;
    }

    /** Sends SIGTERM (what {@link Process#destroy()} does on Linux and macOS). */
    void sigterm() {
        process.destroy();
    }

    /** Waits for the process to end and returns its exit code. */
    int awaitExit() throws InterruptedException {
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the jar did not stop; stdout " + out() + ", stderr " + err());
        }
        return process.exitValue();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    List<String> out() {
        return lines(out);
    }

    List<String> err() {
        return lines(err);
    }

    private static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Kills the process if it still runs, and waits up to 10 s for it to go (an interrupt ends the wait and stays set). */
    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
