package dev.ratelimit.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A stable endpoint in front of a Redis that can change, as a managed Redis's endpoint or HAProxy is:
 * a TCP relay on a free port of 127.0.0.1 that sends each new connection to the current target.
 * {@link #switchTo} changes the target for new connections only; those already relayed stay on
 * their server, as HAProxy's do when a server is marked down. A {@link Gate} may hold each new
 * connection, or close it, before it is relayed.
 */
public final class TcpProxy implements AutoCloseable {
    /** Decides, on the connection's own thread, what becomes of a new connection before it is relayed. */
    @FunctionalInterface
    public interface Gate {
        /** @return whether to relay the connection (false: close it); may block to hold it */
        boolean admit() throws InterruptedException;
    }

    private final Gate gate;
    private final ServerSocket server;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "tcp-proxy");
        t.setDaemon(true);
        return t;
    });
    private final java.util.concurrent.atomic.AtomicInteger accepted = new java.util.concurrent.atomic.AtomicInteger();
    private volatile int target;

    /** A relay to {@code target} that relays every connection at once. */
    public TcpProxy(int target) {
        this(target, () -> true);
    }

    public TcpProxy(int target, Gate gate) {
        this.target = target;
        this.gate = gate;
        try {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        threads.submit(this::accept);
    }

    public int port() {
        return server.getLocalPort();
    }

    /** {@code redis://127.0.0.1:<port>}: the endpoint. */
    public String url() {
        return "redis://127.0.0.1:" + port();
    }

    /** Connections accepted so far. */
    public int accepted() {
        return accepted.get();
    }

    /** New connections go to {@code port} from now on; connections already relayed stay where they are. */
    public void switchTo(int port) {
        target = port;
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                accepted.incrementAndGet();
                sockets.add(s);
                threads.submit(() -> relay(s));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void relay(Socket s) {
        try {
            if (!gate.admit()) {
                close(s);
                return;
            }
            Socket upstream = new Socket(InetAddress.getLoopbackAddress(), target);
            sockets.add(upstream);
            threads.submit(() -> copy(s.getInputStream(), upstream.getOutputStream(), upstream));
            copy(upstream.getInputStream(), s.getOutputStream(), s);
        } catch (IOException | InterruptedException e) {
            close(s);
        }
    }

    private static Void copy(InputStream in, OutputStream out, Socket to) {
        byte[] buffer = new byte[8192];
        try {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException ignored) {
            // either side went away
        }
        close(to);
        return null;
    }

    private static void close(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing
        }
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // closing
        }
        sockets.forEach(TcpProxy::close);
        threads.shutdownNow();
    }
}
