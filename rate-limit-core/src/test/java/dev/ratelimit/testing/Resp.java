package dev.ratelimit.testing;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal Redis client for the test harness's administration commands (CLUSTER, INFO, SCAN, ...):
 * one connection per call, RESP2 replies as String, Long, List or null. It keeps the harness free of
 * Jedis, so what the harness does cannot hide a bug in how the store uses Jedis.
 */
public final class Resp {
    private static final int TIMEOUT_MILLIS = 5_000;

    /** An error reply, e.g. {@code ERR unknown command}. */
    public static final class RespError extends RuntimeException {
        private static final long serialVersionUID = 1L;

        RespError(String message) {
            super(message);
        }
    }

    private Resp() {
    }

    /** Sends one command to {@code port} on 127.0.0.1 and returns its reply. */
    public static Object call(int port, Object... command) {
        return callWithin(port, TIMEOUT_MILLIS, command);
    }

    static Object callWithin(int port, int timeoutMillis, Object... command) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            OutputStream out = socket.getOutputStream();
            out.write(encode(command));
            out.flush();
            return read(new BufferedInputStream(socket.getInputStream()));
        } catch (IOException e) {
            throw new UncheckedIOException("redis at 127.0.0.1:" + port + ": " + e.getMessage(), e);
        }
    }

    /** {@link #call} for a command whose reply is text (a bulk or simple string). */
    public static String text(int port, Object... command) {
        return (String) call(port, command);
    }

    /** One field of {@code INFO section}, e.g. {@code info(port, "replication", "role")}; null if absent. */
    public static String info(int port, String section, String field) {
        for (String line : text(port, "INFO", section).split("\r\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1);
            }
        }
        return null;
    }

    /** Whether {@code PING} answers {@code PONG} within half a second. */
    public static boolean ping(int port) {
        try {
            return "PONG".equals(callWithin(port, 500, "PING"));
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static byte[] encode(Object[] command) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        write(out, "*" + command.length + "\r\n");
        for (Object part : command) {
            byte[] bytes = String.valueOf(part).getBytes(StandardCharsets.UTF_8);
            write(out, "$" + bytes.length + "\r\n");
            out.writeBytes(bytes);
            write(out, "\r\n");
        }
        return out.toByteArray();
    }

    private static void write(ByteArrayOutputStream out, String s) {
        out.writeBytes(s.getBytes(StandardCharsets.UTF_8));
    }

    private static Object read(InputStream in) throws IOException {
        int type = in.read();
        String line = line(in);
        switch (type) {
            case '+':
                return line;
            case '-':
                throw new RespError(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    return null;
                }
                byte[] bytes = in.readNBytes(length + 2);
                return new String(bytes, 0, length, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(line);
                if (count < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    items.add(read(in));
                }
                return items;
            }
            default:
                throw new IOException("unexpected RESP type byte " + type);
        }
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != '\r') {
            if (b < 0) {
                throw new IOException("connection closed mid-reply");
            }
            buffer.write(b);
        }
        in.read(); // '\n'
        return buffer.toString(StandardCharsets.UTF_8);
    }
}
