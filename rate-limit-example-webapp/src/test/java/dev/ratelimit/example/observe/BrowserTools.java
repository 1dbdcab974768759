package dev.ratelimit.example.observe;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What the browser test needs, checked before it starts: Debian's Chromium at {@code /usr/bin/chromium}
 * (or {@code $CHROMIUM}), Node.js 20 or later on the {@code PATH}, and {@code src/test/browser}'s
 * locked playwright-core in {@code node_modules} ({@code npm ci} installs it when it is missing or
 * another version, without any browser download). Anything missing fails the test with a line that
 * says what to install; nothing is skipped.
 */
final class BrowserTools {
    private static final Path CHROMIUM = Path.of(System.getenv().getOrDefault("CHROMIUM", "/usr/bin/chromium"));
    private static final int NODE_MAJOR = 20;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path moduleDir;
    private final Path browserDir;

    /** A finished script: its exit code and its standard output and error, interleaved. */
    record Result(int exitCode, String output) {
        /** The last non-blank line, where dashboard.mjs prints its JSON. */
        String lastLine() {
            String[] lines = output.strip().split("\n");
            return lines[lines.length - 1];
        }
    }

    private BrowserTools(Path moduleDir) {
        this.moduleDir = moduleDir;
        this.browserDir = moduleDir.resolve("src/test/browser");
    }

    /** Checks Chromium and Node.js and installs the locked playwright-core if needed; fails saying what is missing. */
    static BrowserTools require() throws IOException, InterruptedException {
        BrowserTools tools = new BrowserTools(Path.of(System.getProperty("basedir", "")).toAbsolutePath());
        if (!Files.isExecutable(CHROMIUM)) {
            throw new AssertionError("Chromium is missing: no executable " + CHROMIUM + ". Install Debian's package "
                    + "(apt-get install -y chromium; .ci/run does it) or set CHROMIUM to a Chromium binary.");
        }
        Result node;
        try {
            node = tools.run(30, List.of("node", "--version"));
        } catch (IOException e) {
            throw new AssertionError("Node.js is missing: `node` is not on the PATH (" + e.getMessage() + "). Install Node.js "
                    + NODE_MAJOR + " or later with npm.");
        }
        String version = node.output().strip();
        if (node.exitCode() != 0 || !version.matches("v\\d+\\..*") || Integer.parseInt(version.substring(1, version.indexOf('.'))) < NODE_MAJOR) {
            throw new AssertionError("Node.js " + NODE_MAJOR + " or later is needed by playwright-core; `node --version` said: " + version);
        }
        String locked = JSON.readTree(tools.browserDir.resolve("package-lock.json").toFile())
                .path("packages").path("node_modules/playwright-core").path("version").asText();
        if (!locked.equals(tools.installedPlaywright())) {
            Result npm;
            try {
                npm = tools.run(300, List.of("npm", "ci", "--no-audit", "--no-fund"));
            } catch (IOException e) {
                throw new AssertionError("npm is missing: it installs playwright-core for the browser test (" + e.getMessage() + ")");
            }
            if (npm.exitCode() != 0 || !locked.equals(tools.installedPlaywright())) {
                throw new AssertionError("npm ci in " + tools.browserDir + " did not install playwright-core " + locked + ":\n" + npm.output());
            }
        }
        return tools;
    }

    Path moduleDir() {
        return moduleDir;
    }

    /** Runs {@code node script args...} in {@code src/test/browser}; fails if it takes over 90 s. */
    Result runNode(String script, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("node", script));
        command.addAll(List.of(args));
        return run(90, command);
    }

    private String installedPlaywright() throws IOException {
        Path manifest = browserDir.resolve("node_modules/playwright-core/package.json");
        if (!Files.exists(manifest)) {
            return "";
        }
        JsonNode json = JSON.readTree(manifest.toFile());
        return json.path("version").asText();
    }

    private Result run(long timeoutSeconds, List<String> command) throws IOException, InterruptedException {
        Path log = Files.createTempFile(moduleDir.resolve("target"), "browser-tool-", ".log");
        ProcessBuilder builder = new ProcessBuilder(command).directory(browserDir.toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().put("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1");
        Process process = builder.start();
        try {
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new AssertionError(String.join(" ", command) + " took over " + timeoutSeconds + " s:\n"
                        + Files.readString(log, StandardCharsets.UTF_8));
            }
            return new Result(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(log);
        }
    }
}
