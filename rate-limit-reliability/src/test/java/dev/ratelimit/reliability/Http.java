package dev.ratelimit.reliability;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * A real HTTP/1.1 client ({@code java.net.http}) for the suite: one connection pool per instance of
 * this class, generous timeouts (a loaded machine must not turn into lost requests), and answers
 * recorded as {@link Exchange}s. Never throws for a failed request: that is an answer of -1.
 */
final class Http {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(TIMEOUT).build();

    /** {@code GET base+path} with {@code X-API-Key: key} (no key header when null). */
    Exchange get(int instance, URI base, String path, String key) {
        return send(instance, "GET", base, path, key);
    }

    /** {@code method base+path} with {@code X-API-Key: key} (no key header when null); a POST carries the body {@code {}}. */
    Exchange send(int instance, String method, URI base, String path, String key) {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path)).timeout(TIMEOUT)
                .method(method, method.equals("POST") ? HttpRequest.BodyPublishers.ofString("{}") : HttpRequest.BodyPublishers.noBody());
        if (method.equals("POST")) {
            request.header("Content-Type", "application/json");
        }
        if (key != null) {
            request.header("X-API-Key", key);
        }
        long sent = WallClock.now();
        try {
            HttpResponse<Void> r = client.send(request.build(), HttpResponse.BodyHandlers.discarding());
            long answered = WallClock.now();
            return new Exchange(instance, key, sent, answered, r.statusCode(), r.headers().firstValue("Retry-After").orElse(null),
                    r.headers().firstValue("X-RateLimit-Remaining").orElse(null), r.headers().firstValue("X-RateLimit-Limit").orElse(null));
        } catch (IOException e) {
            return new Exchange(instance, key, sent, WallClock.now(), Exchange.NO_ANSWER, null, null, null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Exchange(instance, key, sent, WallClock.now(), Exchange.NO_ANSWER, null, null, null);
        }
    }
}
