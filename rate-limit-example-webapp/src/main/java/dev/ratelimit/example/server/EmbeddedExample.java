package dev.ratelimit.example.server;

import dev.ratelimit.Clock;
import dev.ratelimit.InvalidConfigurationException;
import org.eclipse.jetty.server.LocalConnector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The example app started inside this JVM, built exactly as {@code java -jar} builds it (the same
 * settings, store, filter and servlets), for tests of other modules and for embedding:
 *
 * <pre>{@code
 * try (EmbeddedExample app = EmbeddedExample.start(Map.of("REDIS_URL", "redis://localhost:6379"), Clock.system())) {
 *     HttpRequest scan = HttpRequest.newBuilder(app.uri().resolve("/api/scan")).build();
 *     ...
 *     String raw = app.respond("GET /api/scan HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
 * }
 * }</pre>
 *
 * <p>It listens on a free port of 127.0.0.1 and also has an in-process connector: {@link #respond}
 * runs one raw HTTP/1.1 request through Jetty's parser, the filter and the servlets without a socket,
 * for floods of requests that sockets would make slow. Unlike {@code java -jar} it stops at once,
 * without waiting for requests in flight.
 */
public final class EmbeddedExample implements AutoCloseable {
    private final Server server;
    private final ServerConnector connector;
    private final LocalConnector local;
    private final ExampleApp app;

    private EmbeddedExample(Server server, ServerConnector connector, LocalConnector local, ExampleApp app) {
        this.server = server;
        this.connector = connector;
        this.local = local;
        this.app = app;
    }

    /**
     * Starts the app with the settings of {@code env} (e.g. {@code REDIS_URL}, {@code RATE_LIMIT_CONFIG})
     * and {@code args} (flags such as {@code --failure-mode=FAIL_CLOSED}, which win over {@code env}),
     * on {@code clock}. The host and port are always 127.0.0.1 and a free port.
     *
     * @throws IllegalArgumentException naming the setting when one is invalid, as {@code java -jar} would
     * @throws IllegalStateException    when Jetty cannot start
     */
    public static EmbeddedExample start(Map<String, String> env, Clock clock, String... args) {
        List<String> all = new ArrayList<>(Arrays.asList(args));
        all.addAll(List.of("--host=127.0.0.1", "--port=0"));
        ExampleOptions options;
        ExampleApp app;
        try {
            options = ExampleOptions.parse(all.toArray(new String[0]), env);
            app = ExampleApp.create(options, clock);
        } catch (OptionException | InvalidConfigurationException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost(options.host());
        connector.setPort(options.port());
        LocalConnector local = new LocalConnector(server);
        server.addConnector(connector);
        server.addConnector(local);
        server.setHandler(app.context());
        try {
            server.start();
        } catch (Exception e) {
            stop(server);
            app.close();
            throw new IllegalStateException("the example did not start: " + e, e);
        }
        return new EmbeddedExample(server, connector, local, app);
    }

    /** {@code http://127.0.0.1:<port>}. */
    public URI uri() {
        return URI.create("http://127.0.0.1:" + connector.getLocalPort());
    }

    /** The TCP port. */
    public int port() {
        return connector.getLocalPort();
    }

    /** The store in use, as the start-up log names it (never a password). */
    public String storeDescription() {
        return app.storeDescription();
    }

    /**
     * Answers one raw HTTP/1.1 request in-process (send {@code Connection: close}, or the in-process
     * connection stays open) and returns the raw response: status line, headers and body.
     *
     * @throws IllegalStateException when no response comes within 10 seconds
     */
    public String respond(String rawRequest) {
        String response;
        try {
            response = local.getResponse(rawRequest, 10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("in-process request failed: " + e, e);
        }
        if (response == null) {
            throw new IllegalStateException("no in-process response within 10 seconds");
        }
        return response;
    }

    /** Stops Jetty at once, then closes the store. Safe to call more than once. */
    @Override
    public void close() {
        try {
            stop(server);
        } finally {
            app.close();
        }
    }

    private static void stop(Server server) {
        try {
            server.stop();
        } catch (Exception ignored) {
            // stopping is best effort: the store is closed next either way
        }
    }

    @Override
    public String toString() {
        return "EmbeddedExample[" + uri() + ", " + app.storeDescription() + "]";
    }
}
