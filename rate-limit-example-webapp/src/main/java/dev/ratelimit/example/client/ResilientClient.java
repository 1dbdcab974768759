package dev.ratelimit.example.client;

import dev.ratelimit.Clock;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;

/**
 * An HTTP client for a rate-limited API ({@code java.net.http}), well behaved and bounded:
 * <ul>
 *   <li><b>Retries 429 and 503</b> after the longer of the server's wait ({@code Retry-After},
 *       else the rate-limit headers' time until the quota is back) and an exponential back-off with
 *       full jitter ({@code uniform(0, min(maxDelay, baseDelay * 2^(n-1)))} before retry {@code n}).
 *       A 429 without {@code Retry-After} whose headers say quota is left is not retried: the request
 *       can never pass (it costs more than the limit allows), so no wait helps.
 *       Connection failures are retried the same way (any method when the connection was refused,
 *       only idempotent methods otherwise).</li>
 *   <li><b>Paces itself</b>: when a response says little quota is left (at most {@code lowFraction} of
 *       the limit, default 10%, or nothing), the next request to the same route waits first, spreading
 *       what is left over the time until the quota is back, never slower than the policy's average
 *       rate. No rate-limit headers, no pacing.</li>
 *   <li><b>Bounded</b>: at most {@code maxRetries} retries and {@code maxTotalWait} of waiting per
 *       request. A wait that would break the budget is not started: the client returns the 429 at
 *       once and says why in {@link Exchange#gaveUp()}. A pause for pacing that does not fit the
 *       budget is skipped. Everything is one loop; nothing recurses. A response body longer than
 *       1 MiB is not read further: that try fails as an I/O error.</li>
 * </ul>
 * <pre>{@code
 * ResilientClient client = ResilientClient.builder(URI.create("http://localhost:8080"))
 *         .apiKey("sk-free-demo")
 *         .maxRetries(4)
 *         .maxTotalWait(Duration.ofSeconds(30))
 *         .build();
 * Exchange e = client.get("/api/scan");
 * System.out.println(e.status() + " after " + e.attempts().size() + " tries, waited " + e.totalWait());
 * }</pre>
 * Time comes from a {@link Clock}, waiting from a {@link Sleeper} and jitter from a
 * {@link RandomGenerator}, all injectable: tests drive a real server with a manual clock the
 * sleeper advances. Thread-safe.
 */
public final class ResilientClient {
    /** The longest response body read: a longer one is a failed try, like a connection that broke. */
    static final long MAX_BODY_BYTES = 1 << 20;

    private static final Set<String> IDEMPOTENT = Set.of("GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE");
    /** The longest wait, about 292 years: a {@link Duration} of nanoseconds still holds it. */
    private static final long MAX_WAIT_MICROS = Long.MAX_VALUE / 1_000;

    private final URI base;
    private final HttpClient http;
    private final String apiKey;
    private final int maxRetries;
    private final long maxTotalWaitMicros;
    private final long baseDelayMicros;
    private final long maxDelayMicros;
    private final double lowFraction;
    private final boolean pacing;
    private final Duration requestTimeout;
    private final long requestTimeoutNanos;
    private final Clock clock;
    private final Sleeper sleeper;
    private final RandomGenerator random;
    private final Consumer<Attempt> onAttempt;
    private final RoutePacing paced = new RoutePacing();

    private ResilientClient(Builder b) {
        this.base = b.base;
        this.http = b.http != null ? b.http : HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        this.apiKey = b.apiKey;
        this.maxRetries = b.maxRetries;
        this.maxTotalWaitMicros = micros(b.maxTotalWait);
        this.baseDelayMicros = micros(b.baseDelay);
        this.maxDelayMicros = micros(b.maxDelay);
        this.lowFraction = b.lowFraction;
        this.pacing = b.pacing;
        long nanos;
        try {
            nanos = b.requestTimeout.toNanos();
        } catch (ArithmeticException tooLong) {
            nanos = Long.MAX_VALUE;
        }
        this.requestTimeoutNanos = nanos;
        this.requestTimeout = Duration.ofNanos(nanos); // at most ~292 years: the HttpClient's now + FOREVER overflows
        this.clock = b.clock;
        this.sleeper = b.sleeper;
        this.random = b.random;
        this.onAttempt = b.onAttempt;
    }

    /** A builder for a client of the API at {@code base}, e.g. {@code http://localhost:8080}. */
    public static Builder builder(URI base) {
        return new Builder(base);
    }

    /** {@code GET path}; {@code path} is appended to the base URL, so a base may carry a context path. */
    public Exchange get(String path) throws IOException, InterruptedException {
        return send("GET", path, null);
    }

    /** {@code POST path} with a JSON body. */
    public Exchange post(String path, String json) throws IOException, InterruptedException {
        return send("POST", path, json);
    }

    /**
     * Sends {@code method path} (with a JSON {@code body}, or none when null), pacing and retrying as
     * the class describes.
     *
     * @throws IOException the last connection failure, once retries or the wait budget are used up
     */
    public Exchange send(String method, String path, String body) throws IOException, InterruptedException {
        if (path == null || !path.startsWith("/")) {
            throw new IllegalArgumentException("path must start with /, was " + (path == null ? "null" : "\"" + path + "\""));
        }
        HttpRequest request = request(method, path, body);
        String route = method + " " + request.uri().getPath();
        List<Attempt> attempts = new ArrayList<>();
        long waited = 0;
        RoutePacing.Slot slot = paced.take(route, clock.nowMicros(), maxTotalWaitMicros);
        long wait = slot.waitMicros();
        String reason = slot.why();
        for (int number = 1; ; number++) {
            if (wait > 0) {
                sleeper.sleep(Duration.ofNanos(wait * 1_000));
                waited += wait;
            }
            HttpResponse<String> response;
            try {
                response = exchange(request);
            } catch (IOException e) {
                record(attempts, new Attempt(number, duration(wait), reason, -1, OptionalLong.empty(),
                        String.valueOf(e).replaceAll("\\p{Cntrl}", "?"))); // printed on one line
                boolean retryable = e instanceof ConnectException || e instanceof HttpConnectTimeoutException || IDEMPOTENT.contains(method);
                wait = backoff(number);
                if (!retryable || number > maxRetries || wait > maxTotalWaitMicros - waited) {
                    throw e;
                }
                reason = "back-off after " + e.getClass().getSimpleName();
                continue;
            }
            long now = clock.nowMicros();
            RateLimitHints hints = RateLimitHints.from(response.headers(), now);
            remember(route, hints, now);
            int status = response.statusCode();
            record(attempts, new Attempt(number, duration(wait), reason, status,
                    hints.remaining() < 0 ? OptionalLong.empty() : OptionalLong.of(hints.remaining()), ""));
            if (status != 429 && status != 503) {
                return new Exchange(response, attempts, Optional.empty());
            }
            if (status == 429 && hints.retryAfterMicros() < 0 && hints.remaining() > 0) {
                // Refused though quota is left, and not told when to come back: the request itself can
                // never pass (e.g. it costs more than the limit allows), so no wait helps.
                return new Exchange(response, attempts, Optional.of("a 429 without Retry-After while " + hints.remaining()
                        + " requests are left: waiting would not help"));
            }
            if (number > maxRetries) {
                return new Exchange(response, attempts, Optional.of("retries exhausted (" + maxRetries + ")"));
            }
            long serverWait = hints.serverWaitMicros();
            long jitter = backoff(number);
            wait = Math.max(serverWait, jitter);
            if (wait > maxTotalWaitMicros - waited) {
                return new Exchange(response, attempts, Optional.of("the next wait (" + seconds(wait) + ") would exceed the total wait budget ("
                        + seconds(maxTotalWaitMicros) + ", " + seconds(waited) + " used)"));
            }
            String told = hints.retryAfterMicros() >= 0 ? "Retry-After " + seconds(serverWait)
                    : serverWait >= 0 ? "quota back in " + seconds(serverWait) : "no wait given";
            reason = serverWait >= jitter ? told : "back-off (" + told + ")";
        }
    }

    /**
     * One try, bounded by {@code requestTimeout} from sending to the last byte of the body: the
     * request's own timeout only covers the wait for the response headers, so a body that stalls
     * would otherwise block forever.
     */
    private HttpResponse<String> exchange(HttpRequest request) throws IOException, InterruptedException {
        CompletableFuture<HttpResponse<String>> pending = http.sendAsync(request, LimitedBody.atMost(MAX_BODY_BYTES));
        try {
            return pending.get(requestTimeoutNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            pending.cancel(true);
            throw new HttpTimeoutException("no complete response within " + requestTimeout);
        } catch (InterruptedException e) {
            pending.cancel(true);
            throw e;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IOException(cause);
        }
    }

    /** Full jitter: uniform in {@code [0, min(maxDelay, baseDelay * 2^(number-1))]}. */
    long backoff(int number) {
        long cap = baseDelayMicros;
        for (int i = 1; i < number && cap < maxDelayMicros; i++) {
            cap *= 2;
        }
        cap = Math.min(cap, maxDelayMicros);
        return (long) (random.nextDouble() * cap);
    }

    private void remember(String route, RateLimitHints hints, long now) {
        long pace = pacing ? hints.paceMicros(lowFraction) : 0;
        paced.answered(route, now, pace, "paced: " + hints.remaining() + " left" + (hints.limit() > 0 ? " of " + hints.limit() : ""));
    }

    private void record(List<Attempt> attempts, Attempt attempt) {
        attempts.add(attempt);
        onAttempt.accept(attempt);
    }

    private HttpRequest request(String method, String path, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base.toString().replaceAll("/+$", "") + path)).timeout(requestTimeout)
                .header("Accept", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        if (apiKey != null) {
            b.header("X-API-Key", apiKey);
        }
        return b.build();
    }

    private static Duration duration(long micros) {
        return Duration.ofNanos(micros * 1_000);
    }

    /** {@code d} in µs, at most {@link #MAX_WAIT_MICROS}: a longer duration (up to "forever") waits as long as a wait can. */
    private static long micros(Duration d) {
        return d.compareTo(Duration.ofNanos(MAX_WAIT_MICROS * 1_000)) > 0 ? MAX_WAIT_MICROS : d.toNanos() / 1_000;
    }

    static String seconds(long micros) {
        return String.format(java.util.Locale.ROOT, "%.3fs", micros / 1e6);
    }

    /** Options of a {@link ResilientClient}; every one has a default. */
    public static final class Builder {
        private final URI base;
        private HttpClient http;
        private String apiKey;
        private int maxRetries = 4;
        private Duration maxTotalWait = Duration.ofSeconds(30);
        private Duration baseDelay = Duration.ofMillis(250);
        private Duration maxDelay = Duration.ofSeconds(8);
        private double lowFraction = 0.1;
        private boolean pacing = true;
        private Duration requestTimeout = Duration.ofSeconds(30);
        private Clock clock = Clock.system();
        private Sleeper sleeper = Sleeper.system();
        private RandomGenerator random = () -> ThreadLocalRandom.current().nextLong();
        private Consumer<Attempt> onAttempt = a -> { };

        private Builder(URI base) {
            this.base = Objects.requireNonNull(base, "base");
            if (!"http".equals(base.getScheme()) && !"https".equals(base.getScheme())) {
                throw new IllegalArgumentException("base must be an http or https URL, was \"" + base + "\"");
            }
        }

        /** Sent as {@code X-API-Key} (default none: the server limits by IP address). */
        public Builder apiKey(String key) {
            this.apiKey = key;
            return this;
        }

        /** Retries after the first try, {@code >= 0} (default 4). */
        public Builder maxRetries(int retries) {
            if (retries < 0) {
                throw new IllegalArgumentException("maxRetries must be >= 0, was " + retries);
            }
            this.maxRetries = retries;
            return this;
        }

        /** The most one request may spend waiting, pacing and back-off together (default 30s). */
        public Builder maxTotalWait(Duration wait) {
            this.maxTotalWait = nonNegative("maxTotalWait", wait);
            return this;
        }

        /** The back-off before the first retry at most, doubled for each next one (default 250ms). */
        public Builder baseDelay(Duration delay) {
            this.baseDelay = nonNegative("baseDelay", delay);
            return this;
        }

        /** The largest back-off (default 8s). */
        public Builder maxDelay(Duration delay) {
            this.maxDelay = nonNegative("maxDelay", delay);
            return this;
        }

        /** Pace when at most this share of the limit is left, in {@code [0, 1]} (default 0.1); 0 paces only at none left. */
        public Builder paceBelow(double fraction) {
            if (!(fraction >= 0 && fraction <= 1)) {
                throw new IllegalArgumentException("paceBelow must be in [0, 1], was " + fraction);
            }
            this.lowFraction = fraction;
            return this;
        }

        /** Whether to pace at all (default true); without it, only 429s slow the client down. */
        public Builder pacing(boolean enabled) {
            this.pacing = enabled;
            return this;
        }

        /** How long one try may take, from sending to the last byte of the body, {@code > 0} (default 30s). */
        public Builder requestTimeout(Duration timeout) {
            if (timeout == null || timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("requestTimeout must be a duration > 0, was " + timeout);
            }
            this.requestTimeout = timeout;
            return this;
        }

        /** The HTTP client (default HTTP/1.1, 5s connect timeout). */
        public Builder httpClient(HttpClient client) {
            this.http = Objects.requireNonNull(client, "httpClient");
            return this;
        }

        /** Time, for pacing and HTTP dates (default {@link Clock#system()}). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** How to wait (default {@link Sleeper#system()}). */
        public Builder sleeper(Sleeper sleeper) {
            this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
            return this;
        }

        /** The jitter's randomness (default {@link ThreadLocalRandom}). */
        public Builder random(RandomGenerator random) {
            this.random = Objects.requireNonNull(random, "random");
            return this;
        }

        /** Hears every try as it completes (default: nobody), e.g. to print it. */
        public Builder onAttempt(Consumer<Attempt> listener) {
            this.onAttempt = Objects.requireNonNull(listener, "onAttempt");
            return this;
        }

        public ResilientClient build() {
            if (baseDelay.compareTo(maxDelay) > 0) {
                throw new IllegalArgumentException("baseDelay " + baseDelay + " must not exceed maxDelay " + maxDelay);
            }
            return new ResilientClient(this);
        }

        private static Duration nonNegative(String name, Duration d) {
            if (d == null || d.isNegative()) {
                throw new IllegalArgumentException(name + " must be a duration >= 0, was " + d);
            }
            return d;
        }
    }
}
