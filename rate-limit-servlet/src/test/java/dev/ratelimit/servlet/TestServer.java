package dev.ratelimit.servlet;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import org.eclipse.jetty.ee10.servlet.ErrorPageErrorHandler;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.function.Consumer;

/**
 * A real Jetty 12 server on a free port of 127.0.0.1 with {@link AppServlet} at {@code /} under context
 * {@code /app}, and real HTTP calls to it ({@link HttpCalls}).
 */
final class TestServer implements AutoCloseable {
    static final String CONTEXT = "/app";

    private final Server server;
    private final int port;

    private TestServer(Server server, int port) {
        this.server = server;
        this.port = port;
    }

    /** {@code filter} mapped to {@code /*} for every dispatcher type, 404s sent to the error page {@code /api/reports}. */
    static TestServer start(Filter filter) {
        return start(context -> {
            FilterHolder holder = new FilterHolder(filter);
            holder.setName("rateLimit");
            holder.setAsyncSupported(true);
            context.addFilter(holder, "/*", EnumSet.allOf(DispatcherType.class));
        });
    }

    /** A context set up by {@code setup} (filters, listeners), with the app servlet and error page. */
    static TestServer start(Consumer<ServletContextHandler> setup) {
        return start(setup, new HttpConfiguration());
    }

    /** As {@link #start(Consumer)}, behind a connector with the configuration {@code http}. */
    static TestServer start(Consumer<ServletContextHandler> setup, HttpConfiguration http) {
        ServletContextHandler context = new ServletContextHandler(CONTEXT);
        ServletHolder app = new ServletHolder("app", new AppServlet());
        app.setAsyncSupported(true);
        context.addServlet(app, "/");
        ErrorPageErrorHandler errors = new ErrorPageErrorHandler();
        errors.addErrorPage(404, "/api/reports");
        context.setErrorHandler(errors);
        setup.accept(context);
        return start(context, http);
    }

    /** Any handler, e.g. a WebAppContext. */
    static TestServer start(Handler handler) {
        return start(handler, UriCompliance.DEFAULT);
    }

    /** Any handler behind a connector that accepts the URIs {@code compliance} allows (Jetty's default refuses ambiguous ones). */
    static TestServer start(Handler handler, UriCompliance compliance) {
        HttpConfiguration http = new HttpConfiguration();
        http.setUriCompliance(compliance);
        return start(handler, http);
    }

    /** Any handler behind a connector with the configuration {@code http} (customizers, compliance). */
    static TestServer start(Handler handler, HttpConfiguration http) {
        Server server = new Server(new QueuedThreadPool(24, 4));
        ServerConnector connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(http));
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        server.setHandler(handler);
        try {
            server.start();
        } catch (Exception e) {
            try {
                server.stop();
            } catch (Exception ignored) {
                // the start failure is what matters
            }
            throw new IllegalStateException("Jetty did not start: " + e, e);
        }
        return new TestServer(server, connector.getLocalPort());
    }

    int port() {
        return port;
    }

    /** Closes every open connection, as the idle timeout would: a kept-alive connection holds the context it last served. */
    void closeConnections() {
        for (Connector connector : server.getConnectors()) {
            connector.getConnectedEndPoints().forEach(EndPoint::close);
        }
    }

    boolean isRunning() {
        return server.isRunning();
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + CONTEXT + path);
    }

    /** GET {@code path} with header name/value pairs. */
    HttpResponse<String> get(String path, String... headers) {
        return send("GET", path, headers);
    }

    HttpResponse<String> send(String method, String path, String... headers) {
        return HttpCalls.send(uri(path), method, null, headers);
    }

    /** Sends {@code count} identical requests, up to {@code parallel} in flight; the statuses in completion order. */
    List<Integer> statuses(int count, int parallel, String method, String path, String... headers) {
        HttpRequest request = request(method, path, headers);
        Semaphore inFlight = new Semaphore(parallel);
        List<Integer> statuses = Collections.synchronizedList(new ArrayList<>());
        List<CompletableFuture<?>> all = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            inFlight.acquireUninterruptibly();
            all.add(HttpCalls.CLIENT.sendAsync(request, HttpResponse.BodyHandlers.discarding())
                    .whenComplete((response, error) -> {
                        // Recorded before the next request may go: with one in flight, statuses are in sending order.
                        statuses.add(error == null ? response.statusCode() : -1);
                        inFlight.release();
                    }));
        }
        CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0])).exceptionally(e -> null).join();
        return new ArrayList<>(statuses);
    }

    private HttpRequest request(String method, String path, String... headers) {
        return HttpCalls.request(uri(path), method, null, headers);
    }

    /**
     * Sends raw bytes, each char as one ISO-8859-1 byte (for what HttpClient refuses to send: control
     * characters, non-ASCII bytes); the whole response as text. The request should say {@code Connection: close}.
     */
    String raw(String request) {
        return HttpCalls.raw(port, request);
    }

    @Override
    public void close() {
        try {
            server.stop();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
