package dev.ratelimit.example.client;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The outcome of one {@link ResilientClient} request: the last response and every try that led to it.
 *
 * @param response the last response (a 429 or 503 when the client gave up)
 * @param attempts every try, in order (at least one)
 * @param gaveUp   why the client stopped retrying a 429 or 503, e.g. {@code retries exhausted (4)};
 *                 empty when the last response was final by itself
 */
public record Exchange(HttpResponse<String> response, List<Attempt> attempts, Optional<String> gaveUp) {

    /** Copies the list. */
    public Exchange {
        attempts = List.copyOf(attempts);
    }

    /** The last response's status. */
    public int status() {
        return response.statusCode();
    }

    /** Everything this request waited, pacing and back-off together. */
    public Duration totalWait() {
        return attempts.stream().map(Attempt::waitedBefore).reduce(Duration.ZERO, Duration::plus);
    }
}
