package dev.ratelimit.bench.redis;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Counts the commands a Redis server executes, through {@code MONITOR}: those sent by clients (one
 * network round trip each) apart from those issued by Lua scripts ({@code [0 lua]}). Counting ends
 * when the server echoes {@link #MARKER}, sent by the caller through another connection once its
 * commands have all been answered, so no line is missed.
 */
final class Monitor implements AutoCloseable {
    /** The argument of the {@code ECHO} that ends a count. */
    static final String MARKER = "bench-monitor-end";

    private final Socket socket;
    private final Map<String, Long> client = new TreeMap<>();
    private final Map<String, Long> lua = new TreeMap<>();
    private final CountDownLatch done = new CountDownLatch(1);
    private final Thread reader;
    private volatile IOException failure;

    Monitor(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        OutputStream out = socket.getOutputStream();
        out.write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        String ok = in.readLine();
        if (!"+OK".equals(ok)) {
            throw new IOException("MONITOR answered " + ok);
        }
        reader = new Thread(() -> read(in), "redis-monitor");
        reader.setDaemon(true);
        reader.start();
    }

    private void read(BufferedReader in) {
        try {
            String line;
            while ((line = in.readLine()) != null) {
                int close = line.indexOf("] \"");
                if (close < 0) {
                    continue;
                }
                int end = line.indexOf('"', close + 3);
                String command = line.substring(close + 3, end).toLowerCase(java.util.Locale.ROOT);
                if (command.equals("echo") && line.contains(MARKER)) {
                    done.countDown();
                    return;
                }
                boolean fromLua = line.lastIndexOf(" lua]", close) >= 0;
                (fromLua ? lua : client).merge(command, 1L, Long::sum);
            }
        } catch (IOException e) {
            failure = e;
            done.countDown();
        }
    }

    /** Waits for the marker the caller has just echoed. */
    void awaitMarker() throws IOException, InterruptedException {
        if (!done.await(60, TimeUnit.SECONDS)) {
            throw new IOException("MONITOR never saw the end marker");
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Commands sent by clients, by name. */
    Map<String, Long> clientCommands() {
        return client;
    }

    /** Commands issued by Lua scripts, by name. */
    Map<String, Long> luaCommands() {
        return lua;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
