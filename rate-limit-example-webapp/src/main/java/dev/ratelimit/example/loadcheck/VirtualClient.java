package dev.ratelimit.example.loadcheck;

import dev.ratelimit.Clock;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One client of the load check: sends its {@link Target}'s request back to back until the deadline,
 * turn by turn to each base URL (so several instances see the same key), and counts what came back:
 * allowed (any answer that got past the limiter, not only a 2xx), 429, or other (no answer, or the
 * filter's own 400 or 503).
 * The counters can be read while it runs (progress); the latencies and the interval once it is done.
 */
final class VirtualClient implements Runnable {
    private final Target target;
    private final HttpRequest[] requests;
    private final HttpClient http;
    private final Clock clock;
    private final long deadlineMicros;
    private final int offset;
    private final CountDownLatch done;

    final AtomicLong sent = new AtomicLong();
    final AtomicLong allowed = new AtomicLong();
    final AtomicLong rejected = new AtomicLong();
    final AtomicLong other = new AtomicLong();
    final LatencyHistogram latencies = new LatencyHistogram();
    private volatile long firstSendMicros = -1;
    private volatile long lastAnswerMicros = -1;
    /** When each admitted request was sent and answered; written by the client's thread, read once it is done. */
    private long[] admittedSends = new long[64];
    private long[] admittedAnswers = new long[64];
    private int admittedCount;

    VirtualClient(Target target, List<URI> bases, int offset, HttpClient http, Clock clock, long deadlineMicros,
                  Duration timeout, CountDownLatch done) {
        this.target = target;
        this.requests = bases.stream().map(base -> request(base, target, timeout)).toArray(HttpRequest[]::new);
        this.offset = offset;
        this.http = http;
        this.clock = clock;
        this.deadlineMicros = deadlineMicros;
        this.done = done;
    }

    Target target() {
        return target;
    }

    /** When its first request went out, in clock micros (-1 if none did). */
    long firstSendMicros() {
        return firstSendMicros;
    }

    /** When its last answer (or failure) came back, in clock micros. */
    long lastAnswerMicros() {
        return lastAnswerMicros;
    }

    /** When each admitted request was sent, in order (read once the client is done). */
    long[] admittedSends() {
        return Arrays.copyOf(admittedSends, admittedCount);
    }

    /** When each admitted request was answered, in the order of {@link #admittedSends()}. */
    long[] admittedAnswers() {
        return Arrays.copyOf(admittedAnswers, admittedCount);
    }

    @Override
    public void run() {
        try {
            for (long n = offset; clock.nowMicros() < deadlineMicros; n++) {
                HttpRequest request = requests[(int) (n % requests.length)];
                long start = clock.nowMicros();
                if (firstSendMicros < 0) {
                    firstSendMicros = start;
                }
                sent.incrementAndGet();
                int status;
                try {
                    status = http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
                } catch (IOException e) {
                    status = -1;
                }
                long end = clock.nowMicros();
                lastAnswerMicros = end;
                latencies.record(end - start);
                if (status == 429) {
                    rejected.incrementAndGet();
                } else if (status > 0 && status != 400 && status != 503) {
                    // Past the limiter, whatever the endpoint then answered (a 404 or 405 was admitted
                    // too); the filter's own refusals are 429, 400 (invalid key) and 503 (store down).
                    admitted(start, end);
                    allowed.incrementAndGet();
                } else {
                    other.incrementAndGet();
                    if (status < 0) {
                        // A refused connection fails at once: do not spin on it.
                        Thread.sleep(10);
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            done.countDown();
        }
    }

    private void admitted(long sentMicros, long answeredMicros) {
        if (admittedCount == admittedSends.length) {
            admittedSends = Arrays.copyOf(admittedSends, admittedCount * 2);
            admittedAnswers = Arrays.copyOf(admittedAnswers, admittedCount * 2);
        }
        admittedSends[admittedCount] = sentMicros;
        admittedAnswers[admittedCount] = answeredMicros;
        admittedCount++;
    }

        private static HttpRequest request(URI base, Target target, Duration timeout) {
        return HttpRequest.newBuilder(URI.create(base.toString().replaceAll("/+$", "") + target.path())).timeout(timeout)
                .header("X-API-Key", target.apiKey())
                .header("Content-Type", "application/json")
                .method(target.method(), target.body() == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(target.body()))
                .build();
    }
}
