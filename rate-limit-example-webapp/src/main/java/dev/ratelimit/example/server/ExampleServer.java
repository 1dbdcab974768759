package dev.ratelimit.example.server;

import dev.ratelimit.config.DurationFormat;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

/**
 * An {@link ExampleApp} served by embedded Jetty 12. {@link #stop()} is graceful: the connector stops
 * accepting, requests in flight get up to the shutdown timeout to finish (Jetty's
 * {@link GracefulHandler}), then the store is closed.
 */
final class ExampleServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger("dev.ratelimit.example");

    private final Server server;
    private final ServerConnector connector;
    private final GracefulHandler graceful;
    private final long idleAfterShutdown;
    private final ExampleApp app;
    private final Duration shutdownTimeout;

    private ExampleServer(Server server, ServerConnector connector, GracefulHandler graceful, long idleAfterShutdown,
                          ExampleApp app, Duration shutdownTimeout) {
        this.server = server;
        this.connector = connector;
        this.graceful = graceful;
        this.idleAfterShutdown = idleAfterShutdown;
        this.app = app;
        this.shutdownTimeout = shutdownTimeout;
    }

    /**
     * Starts {@code app} on {@code host:port} (port 0: a free one).
     *
     * @throws OptionException when it cannot listen there (naming the port or host), after closing the app
     */
    static ExampleServer start(ExampleApp app) throws OptionException {
        ExampleOptions options = app.options();
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost(options.host());
        connector.setPort(options.port());
        // Jetty's own shutdown idle timeout (1 s) would apply to every connection as soon as stopping
        // begins, cutting a request in flight whose upload pauses: apply it only once none is in flight.
        long idleAfterShutdown = connector.getShutdownIdleTimeout();
        connector.setShutdownIdleTimeout(-1);
        // A refusal leaves the request's body unread. Jetty reads what has arrived of it, without blocking,
        // before closing the connection; closed with data unread, it is reset, and a proxy still sending the
        // body (nginx) answers 502 and takes the instance out of rotation. 128 reads (16 by default) of up
        // to a buffer each, as Tomcat swallows up to 2 MB: 502s at 900 KB refused bodies fell from 4-7 to
        // 1-2 in 160 through nginx.
        connector.getConnectionFactory(HttpConnectionFactory.class).getHttpConfiguration().setMaxUnconsumedRequestContentReads(128);
        server.addConnector(connector);
        GracefulHandler graceful = new GracefulHandler(app.context());
        server.setHandler(graceful);
        server.setStopTimeout(options.shutdownTimeout().toMillis());
        try {
            server.start();
        } catch (Exception e) {
            stopQuietly(server);
            app.close();
            Throwable cause = e;
            while (cause.getCause() != null && !(cause instanceof IOException)) {
                cause = cause.getCause();
            }
            throw new OptionException("cannot listen on " + options.host() + ":" + options.port() + " (set PORT or --port, "
                    + "RATE_LIMIT_HOST or --host): " + cause.getMessage());
        }
        return new ExampleServer(server, connector, graceful, idleAfterShutdown, app, options.shutdownTimeout());
    }

    /** The port the server listens on. */
    int port() {
        return connector.getLocalPort();
    }

    /** The base URL a local client uses, e.g. {@code http://localhost:8080}. */
    URI uri() {
        String host = app.options().host();
        if (host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]")) {
            host = "localhost";
        } else if (host.contains(":") && !host.startsWith("[")) {
            host = "[" + host + "]";
        }
        return URI.create("http://" + host + ":" + port());
    }

    ExampleApp app() {
        return app;
    }

    /** Blocks until the server has stopped. */
    void join() throws InterruptedException {
        server.join();
    }

    /**
     * Stops accepting, lets requests in flight finish (up to the shutdown timeout; the rest are cut
     * off), then closes the store. Safe to call more than once.
     */
    synchronized void stop() {
        if (server.isStopped()) {
            return;
        }
        LOG.info("stopping: requests in flight have up to {} to finish", DurationFormat.format(shutdownTimeout));
        // Once no request is in flight, idle keep-alive connections close soon, so they do not hold the stop.
        graceful.shutdown().thenRun(() -> connector.getConnectedEndPoints().forEach(e -> e.setIdleTimeout(idleAfterShutdown)));
        try {
            server.stop();
            LOG.info("stopped");
        } catch (TimeoutException e) {
            LOG.warn("stopped after {}: requests still in flight were cut off", DurationFormat.format(shutdownTimeout));
        } catch (Exception e) {
            LOG.warn("stopping Jetty failed: {}", e.toString());
        } finally {
            app.close();
        }
    }

    @Override
    public void close() {
        stop();
    }

    private static void stopQuietly(Server server) {
        try {
            server.stop();
        } catch (Exception ignored) {
            // the start failure is what gets reported
        }
    }
}
