package dev.ratelimit.bench.redis;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away {@code redis-server} (the one on the PATH, or {@code $REDIS_SERVER}) on a free
 * loopback port, with persistence off. Closing it stops the process.
 */
public final class RedisServer implements AutoCloseable {
    private final Process process;
    private final int port;
    private final Path dir;

    private RedisServer(Process process, int port, Path dir) {
        this.process = process;
        this.port = port;
        this.dir = dir;
    }

    /** Starts a server and waits until it answers PING. */
    public static RedisServer start() throws IOException {
        return start(binary());
    }

    /** Starts a server run by {@code binary} and waits until it answers PING. */
    static RedisServer start(String binary) throws IOException {
        return start(binary, freePort(), List.of());
    }

    /** {@code $REDIS_SERVER}, else {@code redis-server} (from the PATH). */
    static String binary() {
        return System.getenv().getOrDefault("REDIS_SERVER", "redis-server");
    }

    /** Starts a server run by {@code binary} on {@code port} with {@code extraArgs} and waits until it answers PING. */
    static RedisServer start(String binary, int port, List<String> extraArgs) throws IOException {
        Path dir = Files.createTempDirectory("bench-redis");
        List<String> command = new ArrayList<>(List.of(binary, "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", dir.toString(), "--maxclients", "1000"));
        command.addAll(extraArgs);
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis.log").toFile())
                .start();
        RedisServer server = new RedisServer(process, port, dir);
        for (int attempt = 0; attempt < 200; attempt++) {
            if (!process.isAlive()) {
                throw new IOException(binary + " exited with " + process.exitValue() + "; see " + dir.resolve("redis.log"));
            }
            if (server.pings()) {
                return server;
            }
            try {
                process.waitFor(25, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        server.close();
        throw new IOException(binary + " did not answer PING on port " + port + "; see " + dir.resolve("redis.log"));
    }

    public int port() {
        return port;
    }

    /** {@code redis://127.0.0.1:port}. */
    public String url() {
        return "redis://127.0.0.1:" + port;
    }

    private boolean pings() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
            return "+PONG".equals(in.readLine());
        } catch (IOException e) {
            return false;
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
