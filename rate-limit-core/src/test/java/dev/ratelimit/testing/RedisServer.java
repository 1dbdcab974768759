package dev.ratelimit.testing;

import org.awaitility.Awaitility;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A real {@code redis-server} process on a free port of 127.0.0.1, for tests: no persistence
 * ({@code --save "" --appendonly no}), its directory under {@code target/redis/}, killed at the
 * latest when the JVM exits (a shutdown hook), so a failing test leaves nothing behind.
 *
 * <pre>{@code
 * try (RedisServer redis = RedisServer.start()) {
 *     RedisStore store = RedisStore.builder().url(redis.url()).build();
 *     ...
 *     redis.kill();      // Redis dies mid-run
 *     redis.restart();   // same port, empty
 * }
 * }</pre>
 */
public final class RedisServer implements AutoCloseable {
    private static final Set<Process> RUNNING = ConcurrentHashMap.newKeySet();
    private static final Duration START_TIMEOUT = Duration.ofSeconds(20);

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(Process::destroyForcibly),
                "redis-test-servers-cleanup"));
    }

    private final Path binary;
    private final int port;
    private final Path dir;
    private final List<String> command;
    private volatile Process process;
    private volatile boolean paused;

    private RedisServer(Path binary, int port, Path dir, List<String> command) {
        this.binary = binary;
        this.port = port;
        this.dir = dir;
        this.command = List.copyOf(command);
    }

    /** A single node from {@link RedisBinary#find()}. */
    public static RedisServer start() {
        return start(RedisBinary.find());
    }

    /** A single node run by {@code binary}. */
    public static RedisServer start(Path binary) {
        return start(binary, freePort(false), List.of());
    }

    /** A single node from {@link RedisBinary#find()} with extra {@code redis-server} arguments (e.g. TLS). */
    public static RedisServer start(List<String> extraArgs) {
        return start(RedisBinary.find(), freePort(false), extraArgs);
    }

    /** A port that is free on 127.0.0.1 right now. */
    public static int freePort() {
        return freePort(false);
    }

    /** A node on {@code port} with extra {@code redis-server} arguments (e.g. cluster mode). */
    static RedisServer start(Path binary, int port, List<String> extraArgs) {
        Path dir = directory("node-" + port);
        List<String> command = new ArrayList<>(List.of(binary.toString(),
                "--port", Integer.toString(port), "--bind", "127.0.0.1", "--protected-mode", "no",
                "--save", "", "--appendonly", "no", "--dir", dir.toString(), "--daemonize", "no",
                "--logfile", dir.resolve("redis.log").toString()));
        command.addAll(extraArgs);
        RedisServer server = new RedisServer(binary, port, dir, command);
        server.launch();
        return server;
    }

    /**
     * A Sentinel (same binary, {@code --sentinel}) monitoring {@code master} under {@code masterName}
     * with a quorum of 1: for {@code redis-sentinel://} URLs.
     */
    public static RedisServer startSentinel(RedisServer master, String masterName) {
        int port = freePort(false);
        Path dir = directory("sentinel-" + port);
        Path config = dir.resolve("sentinel.conf");
        try {
            Files.createDirectories(dir);
            Files.writeString(config, "sentinel monitor " + masterName + " 127.0.0.1 " + master.port() + " 1\n"
                    + "sentinel down-after-milliseconds " + masterName + " 1000\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        RedisServer sentinel = new RedisServer(master.binary(), port, dir, List.of(master.binary().toString(),
                config.toString(), "--sentinel", "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--protected-mode", "no", "--daemonize", "no", "--dir", dir.toString(),
                "--logfile", dir.resolve("redis.log").toString()));
        sentinel.launch();
        return sentinel;
    }

    /**
     * An empty directory for a new server: a port can come round again, within a run or in the next
     * one without {@code mvn clean}, and a cluster node must not load the {@code nodes.conf} that an
     * earlier node on its port left (it would know that node's cluster and refuse to form a new one).
     * {@link #restart()} keeps the directory, so a restarted node rejoins its cluster.
     */
    private static Path directory(String name) {
        Path dir = Path.of(System.getProperty("basedir", "."), "target", "redis", name);
        try (var files = Files.exists(dir) ? Files.walk(dir) : java.util.stream.Stream.<Path>empty()) {
            for (Path f : (Iterable<Path>) files.sorted(java.util.Comparator.reverseOrder())::iterator) {
                Files.delete(f);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return dir;
    }

    /** The port. */
    public int port() {
        return port;
    }

    /** {@code redis://127.0.0.1:<port>}. */
    public String url() {
        return "redis://127.0.0.1:" + port;
    }

    /** The executable this node runs. */
    public Path binary() {
        return binary;
    }

    /** The server's version, e.g. {@code 7.0.15}. */
    public String version() {
        return Resp.info(port, "server", "redis_version");
    }

    /** Whether this server runs Redis Functions (FCALL): Redis 7 and newer. */
    public boolean hasFunctions() {
        return Integer.parseInt(version().split("\\.")[0]) >= 7;
    }

    /**
     * Decision calls this node has run since it started or {@code CONFIG RESETSTAT}: FCALL (Redis
     * Functions, Redis 7+) plus EVALSHA (scripts, the fallback), from {@code INFO commandstats}.
     */
    public long decisionCalls() {
        return calls("cmdstat_fcall") + calls("cmdstat_evalsha");
    }

    /** Calls of one command ({@code cmdstat_<name>}) from {@code INFO commandstats}; 0 if never called. */
    public long calls(String cmdstat) {
        String stats = Resp.info(port, "commandstats", cmdstat);
        return stats == null ? 0 : Long.parseLong(stats.replaceAll("^calls=(\\d+),.*$", "$1"));
    }

    /** Sends a command to this node (see {@link Resp#call}). */
    public Object call(Object... command) {
        return Resp.call(port, command);
    }

    /**
     * Waits until {@code replicas} replicas have processed every write this node had made when called,
     * or {@code timeout} has passed, and returns how many had. Not Redis' {@code WAIT}: that waits for
     * the writes of the connection that sends it, and this node's writes came from other connections
     * (a {@code WAIT} here counted a replica still loading its first copy). Each replica is asked its
     * own offset, so the answer does not wait for its once-a-second acknowledgement.
     */
    public long awaitReplicas(int replicas, Duration timeout) {
        long written = Long.parseLong(Resp.info(port, "replication", "master_repl_offset"));
        long[] caughtUp = new long[1];
        try {
            Awaitility.await().pollInterval(Duration.ofMillis(10)).atMost(timeout).until(() -> {
                caughtUp[0] = replicasAt(written);
                return caughtUp[0] >= replicas;
            });
        } catch (org.awaitility.core.ConditionTimeoutException slow) {
            // the count so far is the answer
        }
        return caughtUp[0];
    }

    /** How many online replicas of this node say they have processed its writes up to {@code offset}. */
    private long replicasAt(long offset) {
        long n = 0;
        for (String line : Resp.text(port, "INFO", "replication").split("\r\n")) {
            java.util.regex.Matcher m = java.util.regex.Pattern
                    .compile("^slave\\d+:ip=([^,]+),port=(\\d+),state=online,.*").matcher(line);
            if (m.matches()) {
                String processed = Resp.info(Integer.parseInt(m.group(2)), "replication", "slave_repl_offset");
                if (processed != null && Long.parseLong(processed) >= offset) {
                    n++;
                }
            }
        }
        return n;
    }

    /** Whether the process is running (it may still be paused). */
    public boolean isRunning() {
        Process p = process;
        return p != null && p.isAlive();
    }

    /** Kills the process at once (SIGKILL), as a crash would; its data is gone. */
    public void kill() {
        Process p = process;
        if (p != null) {
            p.destroyForcibly();
            try {
                p.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            RUNNING.remove(p);
            process = null;
        }
    }

    /** Starts the node again on the same port (after {@link #kill}), empty: no persistence. */
    public void restart() {
        kill();
        launch();
    }

    /** Freezes the process (SIGSTOP): connections stay open, nothing answers. */
    public void pause() {
        signal("-STOP");
        paused = true;
    }

    /** Thaws a {@link #pause}d process (SIGCONT). */
    public void resume() {
        signal("-CONT");
        paused = false;
    }

    /** Whether the process runs and is not {@link #pause}d: it answers commands. */
    public boolean answers() {
        return isRunning() && !paused;
    }

    /** {@code CLIENT PAUSE millis ALL}: Redis holds every client's commands for {@code millis}. */
    public void clientPause(long millis) {
        call("CLIENT", "PAUSE", millis, "ALL");
    }

    @Override
    public void close() {
        Process p = process;
        if (p != null && p.isAlive()) {
            resume();
        }
        kill();
    }

    @Override
    public String toString() {
        return "RedisServer[127.0.0.1:" + port + (isRunning() ? "" : ", stopped") + "]";
    }

    private void launch() {
        try {
            Files.createDirectories(dir);
            Process p = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("stdout.log").toFile()).start();
            RUNNING.add(p);
            process = p;
        } catch (IOException e) {
            throw new UncheckedIOException("starting " + binary + " on port " + port, e);
        }
        Awaitility.await("redis-server on port " + port + " (log: " + dir + ")")
                .atMost(START_TIMEOUT).pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    if (!isRunning()) {
                        throw new IllegalStateException("redis-server on port " + port + " exited; see " + dir.resolve("redis.log"));
                    }
                    return Resp.ping(port);
                });
    }

    private void signal(String signal) {
        Process p = process;
        if (p == null) {
            return;
        }
        try {
            int exit = new ProcessBuilder("kill", signal, Long.toString(p.pid())).inheritIO().start().waitFor();
            if (exit != 0) {
                throw new IllegalStateException("kill " + signal + " " + p.pid() + " exited with " + exit);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * A port free right now on 127.0.0.1; with {@code withBus}, port + 10000 (the cluster bus) too.
     */
    static int freePort(boolean withBus) {
        for (int attempt = 0; attempt < 100; attempt++) {
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                int port = socket.getLocalPort();
                if (!withBus) {
                    return port;
                }
                if (port + 10_000 <= 65_535 && isFree(port + 10_000)) {
                    return port;
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        throw new IllegalStateException("no free port pair (port, port + 10000) found");
    }

    private static boolean isFree(int port) {
        try (ServerSocket probe = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return probe.isBound();
        } catch (IOException e) {
            return false;
        }
    }
}
