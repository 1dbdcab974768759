package dev.ratelimit.example.server;

import dev.ratelimit.Clock;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The executable example started in this JVM, as {@code Main} starts it, on a free port of 127.0.0.1
 * and on the given clock (a {@code ManualClock} drives the filter and the in-memory store), with a
 * real HTTP client. For tests of every package. It stops at once (no graceful wait for the test
 * client's idle keep-alive connections); {@code ExecutableJarIT} tests the graceful stop.
 */
public final class RunningExample implements AutoCloseable {
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private final ExampleServer server;

    private RunningExample(ExampleServer server) {
        this.server = server;
    }

    /** Starts the app with {@code args} (flags such as {@code --config=...}) and {@code env}. */
    public static RunningExample start(Clock clock, Map<String, String> env, String... args) {
        List<String> all = new ArrayList<>(List.of("--host=127.0.0.1", "--port=0", "--shutdown-timeout=0s"));
        all.addAll(Arrays.asList(args));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Main.Launch launch = Main.launch(all.toArray(new String[0]), env, System.out,
                new PrintStream(err, true, StandardCharsets.UTF_8), clock);
        if (launch.server() == null) {
            throw new IllegalStateException("the example did not start: " + err.toString(StandardCharsets.UTF_8));
        }
        return new RunningExample(launch.server());
    }

    /** Starts the app with {@code args} and an empty environment. */
    public static RunningExample start(Clock clock, String... args) {
        return start(clock, Map.of(), args);
    }

    /** The base URL, {@code http://127.0.0.1:<port>}. */
    public URI uri() {
        return server.uri();
    }

    public int port() {
        return server.port();
    }

    /** The server, for what the app itself says (its store description). */
    ExampleServer server() {
        return server;
    }

    /** {@code GET path} with header name/value pairs. */
    public HttpResponse<String> get(String path, String... headers) {
        return send("GET", path, null, headers);
    }

    /** {@code method path} with an optional body and header name/value pairs. */
    public HttpResponse<String> send(String method, String path, String body, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(uri() + path)).timeout(Duration.ofSeconds(10))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        try {
            return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException(method + " " + path + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        server.stop();
    }
}
