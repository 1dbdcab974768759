package dev.ratelimit.example.client;

import dev.ratelimit.ManualClock;
import dev.ratelimit.example.server.RunningExample;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.random.RandomGenerator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * {@link ResilientClient} against the real example server, in fake time: the server's filter and
 * store run on a manual clock, and the client's sleeper advances that clock instead of sleeping.
 */
class ResilientClientTest {
    /** Jitter at its lowest: waits are exactly the server's. */
    private static final RandomGenerator NO_JITTER = () -> 0L;
    /** Jitter at its highest: {@code nextDouble()} is 1 - 2^-53. */
    private static final RandomGenerator FULL_JITTER = () -> -1L;

    /** 20 seconds into a minute, so a fixed window has 40 seconds left. */
    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:20Z"));
    private final List<Duration> sleeps = new ArrayList<>();
    private RunningExample app;

    @BeforeEach
    void start() {
        app = RunningExample.start(clock);
    }

    @AfterEach
    void stop() {
        app.close();
    }

    private ResilientClient.Builder client(String key) {
        return ResilientClient.builder(app.uri()).apiKey(key).clock(clock).random(NO_JITTER)
                .sleeper(d -> {
                    sleeps.add(d);
                    clock.advance(d);
                });
    }

    @Test
    void retriesA429AfterRetryAfterAndGetsThrough() throws Exception {
        ResilientClient client = client("sk-free-retry").pacing(false).build();
        for (int i = 0; i < 10; i++) {
            assertThat(client.get("/api/scan").status()).isEqualTo(200);
        }
        Instant before = now();

        Exchange e = client.get("/api/scan");

        assertThat(e.status()).isEqualTo(200);
        assertThat(e.attempts()).extracting(Attempt::status).containsExactly(429, 200);
        assertThat(e.attempts()).extracting(Attempt::waitReason).containsExactly("", "Retry-After 1.000s");
        assertThat(e.totalWait()).isEqualTo(Duration.ofSeconds(1));
        assertThat(e.gaveUp()).isEmpty();
        assertThat(sleeps).containsExactly(Duration.ofSeconds(1));
        assertThat(Duration.between(before, now())).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void waitsTheLongerOfRetryAfterAndTheJitteredBackoff() throws Exception {
        ResilientClient client = client("sk-free-jitter").pacing(false).random(FULL_JITTER).baseDelay(Duration.ofSeconds(2)).build();
        for (int i = 0; i < 10; i++) {
            client.get("/api/scan");
        }

        Exchange e = client.get("/api/scan");

        assertThat(e.status()).isEqualTo(200);
        assertThat(e.attempts().get(1).waitedBefore()).isEqualTo(Duration.ofNanos(1_999_999_000));
        assertThat(e.attempts().get(1).waitReason()).isEqualTo("back-off (Retry-After 1.000s)");
    }

    @Test
    void givesUpAtOnceWhenTheServerAsksForMoreThanTheWaitBudget() throws Exception {
        ResilientClient client = client("sk-free-budget").maxTotalWait(Duration.ofSeconds(10)).build();
        for (int i = 0; i < 5; i++) {
            assertThat(client.post("/api/login", "{}").status()).isEqualTo(200);
        }
        sleeps.clear();

        Exchange sixth = client.post("/api/login", "{}");

        assertThat(sixth.status()).isEqualTo(429);
        assertThat(sixth.response().headers().firstValue("Retry-After")).hasValue("40");
        assertThat(sixth.attempts()).hasSize(1);
        assertThat(sixth.gaveUp()).hasValue("the next wait (40.000s) would exceed the total wait budget (10.000s, 0.000s used)");
        assertThat(sleeps).isEmpty();
    }

    @Test
    void stopsAfterMaxRetriesWhenTheServerKeepsRefusing() throws Exception {
        List<Duration> waited = new ArrayList<>();
        ResilientClient client = client("sk-free-stubborn").pacing(false).maxRetries(3).sleeper(waited::add).build();
        for (int i = 0; i < 10; i++) {
            client.get("/api/scan");
        }

        Exchange e = client.get("/api/scan");

        assertThat(e.status()).isEqualTo(429);
        assertThat(e.attempts()).extracting(Attempt::status).containsExactly(429, 429, 429, 429);
        assertThat(e.gaveUp()).hasValue("retries exhausted (3)");
        assertThat(waited).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1));
    }

    @Test
    void neverWaitsLongerInAllThanTheTotalBudget() throws Exception {
        List<Duration> waited = new ArrayList<>();
        ResilientClient client = client("sk-free-patient").pacing(false).maxRetries(100).maxTotalWait(Duration.ofMillis(5500))
                .sleeper(waited::add).build();
        for (int i = 0; i < 10; i++) {
            client.get("/api/scan");
        }

        Exchange e = client.get("/api/scan");

        assertThat(e.status()).isEqualTo(429);
        assertThat(waited).hasSize(5).allMatch(d -> d.equals(Duration.ofSeconds(1)));
        assertThat(e.totalWait()).isEqualTo(Duration.ofSeconds(5));
        assertThat(e.gaveUp()).hasValue("the next wait (1.000s) would exceed the total wait budget (5.500s, 5.000s used)");
    }

    @Test
    void pacesWhenLittleQuotaIsLeftSoItNeverHitsTheLimit() throws Exception {
        ResilientClient client = client("sk-free-pacer").build();
        List<Integer> statuses = new ArrayList<>();
        List<Integer> tries = new ArrayList<>();

        for (int i = 0; i < 30; i++) {
            Exchange e = client.get("/api/scan");
            statuses.add(e.status());
            tries.add(e.attempts().size());
        }

        assertThat(statuses).hasSize(30).containsOnly(200);
        assertThat(tries).containsOnly(1);
        // Nine at once; from one left (10% of 10), one request per second: the bucket's refill rate.
        assertThat(sleeps).hasSize(21).containsOnly(Duration.ofSeconds(1));
    }

    @Test
    void namesWhyItPacedInTheAttempt() throws Exception {
        ResilientClient client = client("sk-free-why").build();
        for (int i = 0; i < 9; i++) {
            client.get("/api/scan");
        }

        Attempt paced = client.get("/api/scan").attempts().get(0);

        assertThat(paced.waitReason()).isEqualTo("paced: 1 left of 10");
        assertThat(paced.waitedBefore()).isEqualTo(Duration.ofSeconds(1));
        assertThat(paced.remaining()).hasValue(1);
    }

    @Test
    void neverPacesWithoutRateLimitHeaders() throws Exception {
        ResilientClient client = client(null).build();

        for (int i = 0; i < 20; i++) {
            assertThat(client.get("/health").status()).isEqualTo(200);
        }

        assertThat(sleeps).isEmpty();
    }

    @Test
    void retriesARefusedConnectionWithExponentialFullJitterThenThrowsIt() throws Exception {
        URI closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = URI.create("http://127.0.0.1:" + s.getLocalPort());
        }
        List<Duration> waited = new ArrayList<>();
        ResilientClient client = ResilientClient.builder(closed).clock(clock).random(FULL_JITTER).sleeper(waited::add)
                .baseDelay(Duration.ofMillis(100)).maxDelay(Duration.ofMillis(500)).maxRetries(4).build();

        assertThatThrownBy(() -> client.get("/api/scan")).isInstanceOf(ConnectException.class);
        assertThat(waited).containsExactly(Duration.ofNanos(99_999_000), Duration.ofNanos(199_999_000),
                Duration.ofNanos(399_999_000), Duration.ofNanos(499_999_000));
    }

    @Test
    void backoffDoublesUpToItsCapWithFullJitter() {
        ResilientClient max = ResilientClient.builder(URI.create("http://localhost")).random(FULL_JITTER).build();
        ResilientClient min = ResilientClient.builder(URI.create("http://localhost")).random(NO_JITTER).build();

        assertThat(List.of(1, 2, 3, 4, 5, 6, 7, 60).stream().map(max::backoff))
                .containsExactly(249_999L, 499_999L, 999_999L, 1_999_999L, 3_999_999L, 7_999_999L, 7_999_999L, 7_999_999L);
        assertThat(min.backoff(5)).isZero();
    }

    @Test
    void rejectsOptionsOutsideTheirRange() {
        ResilientClient.Builder b = ResilientClient.builder(URI.create("http://localhost"));

        assertThatThrownBy(() -> b.maxRetries(-1)).hasMessage("maxRetries must be >= 0, was -1");
        assertThatThrownBy(() -> b.maxTotalWait(Duration.ofSeconds(-1))).hasMessage("maxTotalWait must be a duration >= 0, was PT-1S");
        assertThatThrownBy(() -> b.paceBelow(1.5)).hasMessage("paceBelow must be in [0, 1], was 1.5");
        assertThatThrownBy(() -> ResilientClient.builder(URI.create("ftp://host"))).hasMessage("base must be an http or https URL, was \"ftp://host\"");
        assertThatThrownBy(() -> b.baseDelay(Duration.ofSeconds(9)).build()).hasMessage("baseDelay PT9S must not exceed maxDelay PT8S");
        assertThatThrownBy(() -> b.maxDelay(Duration.ofSeconds(10)).build().get("api/scan"))
                .hasMessage("path must start with /, was \"api/scan\"");
    }

    @Test
    void theExchangeCarriesTheFinalResponse() throws IOException, InterruptedException {
        Exchange e = client("sk-pro-final").build().post("/api/login", "{\"user\":\"demo\"}");

        assertThat(e.response().body()).isEqualTo("{\"token\":\"mock-jwt\"}");
        assertThat(e.attempts()).extracting(Attempt::remaining).containsExactly(java.util.OptionalLong.of(49));
        assertThat(e.gaveUp()).isEqualTo(Optional.empty());
    }

    @Test
    void aRetryAfterTooLongToBeANumberIsAVeryLongWaitSoItGivesUpInsteadOfRetryingAtOnce() throws Exception {
        AtomicInteger requests = new AtomicInteger();
        HttpServer stub = stub(x -> {
            requests.incrementAndGet();
            x.getResponseHeaders().add("Retry-After", "99999999999999");
            x.sendResponseHeaders(429, -1);
            x.close();
        });
        try {
            ResilientClient client = ResilientClient.builder(uri(stub)).clock(clock).random(NO_JITTER).sleeper(sleeps::add).build();

            Exchange e = client.get("/api/scan");

            assertThat(e.status()).isEqualTo(429);
            assertThat(e.attempts()).hasSize(1);
            assertThat(e.gaveUp()).hasValueSatisfying(why -> assertThat(why).startsWith("the next wait (").endsWith(
                    ") would exceed the total wait budget (30.000s, 0.000s used)"));
            assertThat(sleeps).isEmpty();
            assertThat(requests).hasValue(1);
        } finally {
            stub.stop(0);
        }
    }

    @Test
    void aBodyWithoutEndIsNotReadIntoMemory() throws Exception {
        // A hostile server (or anyone on a plain-HTTP path) streams a body for ever: read whole, it ran
        // the client out of memory. Past 1 MiB the try fails like a broken connection.
        AtomicInteger requests = new AtomicInteger();
        HttpServer stub = stub(x -> {
            requests.incrementAndGet();
            x.sendResponseHeaders(200, 0); // chunked
            byte[] chunk = new byte[64 * 1024];
            try (var out = x.getResponseBody()) {
                for (int i = 0; i < 1024; i++) { // 64 MiB, unless the client hangs up first
                    out.write(chunk);
                }
            } catch (IOException clientHungUp) {
                // what a bounded client does
            }
        });
        try {
            ResilientClient client = ResilientClient.builder(uri(stub)).clock(clock).random(NO_JITTER).sleeper(sleeps::add)
                    .maxRetries(0).build();

            assertThatThrownBy(() -> client.get("/api/scan"))
                    .isInstanceOf(IOException.class).hasMessageContaining("response body longer than 1048576 bytes");
            assertThat(requests).hasValue(1);
        } finally {
            stub.stop(0);
        }
    }

    @Test
    void threadsSharingTheClientTakeSuccessivePacedMomentsInsteadOfWakingTogether() throws Exception {
        // Every answer: 1 of 10 left, the quota back in 9 s: pace min(9 s / 2, 10 s / 10) = 1 s.
        HttpServer stub = oneLeftOfTenBackIn9Seconds();
        List<Duration> waits = new java.util.concurrent.CopyOnWriteArrayList<>();
        try {
            ResilientClient client = ResilientClient.builder(uri(stub)).clock(clock).random(NO_JITTER).sleeper(waits::add).build();
            assertThat(client.get("/api/scan").status()).isEqualTo(200);

            var threads = Executors.newFixedThreadPool(4);
            try {
                List<java.util.concurrent.Future<Exchange>> calls = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    calls.add(threads.submit(() -> client.get("/api/scan")));
                }
                for (var call : calls) {
                    assertThat(call.get().status()).isEqualTo(200);
                }
            } finally {
                threads.shutdownNow();
            }
        } finally {
            stub.stop(0);
        }
        // The clock stands still: before, all four slept until the same moment, 1 s away.
        assertThat(waits).containsExactlyInAnyOrder(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(3),
                Duration.ofSeconds(4));
    }

    @Test
    void aPauseSkippedForTheBudgetTakesNoMomentSoPacingResumesAsTimePasses() throws Exception {
        // Every answer: 1 of 10 left, the quota back in 9 s: pace 1 s. The budget fits 2.5 s of waiting.
        HttpServer stub = oneLeftOfTenBackIn9Seconds();
        List<Duration> waits = new ArrayList<>();
        try {
            // Sleeps do not move the clock: as if other threads shared the client, taking moments meanwhile.
            ResilientClient client = ResilientClient.builder(uri(stub)).clock(clock).random(NO_JITTER)
                    .maxTotalWait(Duration.ofMillis(2_500)).sleeper(waits::add).build();
            for (int i = 0; i < 8; i++) {
                client.get("/api/scan");
            }
            assertThat(waits).as("1 s and 2 s fit; the 3 s moment does not, and goes unpaced").containsExactly(
                    Duration.ofSeconds(1), Duration.ofSeconds(2));

            clock.advance(Duration.ofSeconds(1));
            client.get("/api/scan");
        } finally {
            stub.stop(0);
        }
        // Before, each skipped pause still moved the schedule on (to 8 s away), so pacing stayed off.
        assertThat(waits).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(2));
    }

    @Test
    void aTryWhoseBodyStallsEndsAtTheRequestTimeout() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        HttpServer stub = stub(x -> {
            x.sendResponseHeaders(200, 100);
            x.getResponseBody().write("{\"par".getBytes(StandardCharsets.UTF_8));
            x.getResponseBody().flush();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            x.close();
        });
        try {
            ResilientClient client = ResilientClient.builder(uri(stub)).clock(clock).sleeper(sleeps::add).maxRetries(0)
                    .requestTimeout(Duration.ofMillis(300)).build();

            assertTimeoutPreemptively(Duration.ofSeconds(20), () ->
                    assertThatThrownBy(() -> client.get("/api/scan")).isInstanceOf(HttpTimeoutException.class));
        } finally {
            release.countDown();
            stub.stop(0);
        }
    }

    @Test
    void aWaitBudgetAndDelaysTooLongForNanosecondsMeanWaitAsLongAsAskedNotAnArithmeticException() throws Exception {
        Duration forever = ChronoUnit.FOREVER.getDuration();
        ResilientClient client = client("sk-free-forever").pacing(false).maxTotalWait(forever).maxDelay(forever).build();
        for (int i = 0; i < 10; i++) {
            client.get("/api/scan");
        }

        Exchange e = client.get("/api/scan");

        assertThat(e.attempts()).extracting(Attempt::status).containsExactly(429, 200);
        assertThat(sleeps).containsExactly(Duration.ofSeconds(1));
    }

    @Test
    void aRequestTimeoutTooLongForTheHttpClientMeansWaitAsLongAsItCanNotAnArithmeticException() throws Exception {
        ResilientClient client = client("sk-free-patience").requestTimeout(ChronoUnit.FOREVER.getDuration()).build();

        assertThat(client.get("/api/scan").status()).isEqualTo(200);
    }

    @Test
    void rejectsARequestTimeoutOfZeroWhenBuiltNotOnEverySend() {
        assertThatThrownBy(() -> ResilientClient.builder(URI.create("http://localhost")).requestTimeout(Duration.ZERO))
                .hasMessage("requestTimeout must be a duration > 0, was PT0S");
    }

    @Test
    void pacesWhenThePolicyOfTheNamedItemComesOnASecondFieldLine() throws Exception {
        // The policy list "a";q=100;w=1, "scan-1";q=10;w=10 sent as two field lines, as a proxy may
        // split it (RFC 9110 5.3): the client reads them as one list. 1 of 10 left, back in 9 s: pace 1 s.
        HttpServer stub = stub(x -> {
            x.getResponseHeaders().add("RateLimit-Policy", "\"a\";q=100;w=1");
            x.getResponseHeaders().add("RateLimit-Policy", "\"scan-1\";q=10;w=10");
            x.getResponseHeaders().add("RateLimit", "\"scan-1\";r=1;t=9");
            x.sendResponseHeaders(200, -1);
            x.close();
        });
        List<Duration> sleeps = new ArrayList<>();
        try {
            ResilientClient client = ResilientClient.builder(uri(stub)).clock(clock).random(NO_JITTER)
                    .sleeper(d -> { sleeps.add(d); clock.advance(d); }).build();
            client.get("/api/scan");

            Exchange second = client.get("/api/scan");

            assertThat(second.attempts().get(0).waitReason()).isEqualTo("paced: 1 left of 10");
            assertThat(sleeps).containsExactly(Duration.ofSeconds(1));
        } finally {
            stub.stop(0);
        }
    }

    @Test
    void doesNotRetryAServerWhoseSecondRateLimitItemSaysNothingIsLeftForAnHour() throws Exception {
        AtomicInteger requests = new AtomicInteger();
        HttpServer stub = stub(x -> {
            requests.incrementAndGet();
            x.getResponseHeaders().add("RateLimit-Policy", "\"minute\";q=10;w=60, \"day\";q=1000;w=86400");
            x.getResponseHeaders().add("RateLimit", "\"minute\";r=8;t=10, \"day\";r=0;t=3600");
            x.sendResponseHeaders(429, -1);
            x.close();
        });
        try {
            ResilientClient client = ResilientClient.builder(uri(stub)).clock(clock).random(NO_JITTER)
                    .sleeper(clock::advance).build();

            Exchange e = client.get("/api/scan");

            assertThat(e.status()).isEqualTo(429);
            assertThat(e.gaveUp()).hasValue("the next wait (3600.000s) would exceed the total wait budget (30.000s, 0.000s used)");
            assertThat(requests).as("the day's quota is not back for an hour: a retry sooner is refused").hasValue(1);
        } finally {
            stub.stop(0);
        }
    }

    @Test
    void doesNotRetryA429WithoutRetryAfterWhileTheQuotaIsLeft() throws Exception {
        // The filter's answer to a request that costs more than the limit ever allows (README, "The
        // filter's own answers"): no Retry-After, "do not retry", the quota untouched (10 of 10 left).
        AtomicInteger requests = new AtomicInteger();
        HttpServer stub = stub(x -> {
            requests.incrementAndGet();
            x.getResponseHeaders().add("X-RateLimit-Limit", "10");
            x.getResponseHeaders().add("X-RateLimit-Remaining", "10");
            x.getResponseHeaders().add("RateLimit-Policy", "\"scan\";q=10;w=10");
            x.getResponseHeaders().add("RateLimit", "\"scan\";r=10;t=0");
            x.getResponseHeaders().add("Content-Type", "application/problem+json");
            byte[] body = ("{\"type\":\"urn:dev-ratelimit:cost-exceeds-limit\",\"status\":429,"
                    + "\"error\":\"cost_exceeds_limit\"}").getBytes(StandardCharsets.UTF_8);
            x.sendResponseHeaders(429, body.length);
            x.getResponseBody().write(body);
            x.close();
        });
        try {
            ResilientClient client = ResilientClient.builder(uri(stub)).clock(clock).random(FULL_JITTER)
                    .sleeper(d -> { sleeps.add(d); clock.advance(d); }).build();

            Exchange e = client.get("/api/scan");

            assertThat(e.status()).isEqualTo(429);
            assertThat(e.attempts()).hasSize(1);
            assertThat(e.gaveUp()).hasValue("a 429 without Retry-After while 10 requests are left: waiting would not help");
            assertThat(sleeps).isEmpty();
            assertThat(requests).as("a request that can never pass is not sent again").hasValue(1);
        } finally {
            stub.stop(0);
        }
    }

    @Test
    void aRetryAfterOfZeroIsRetriedAtOnceWithoutCallingTheSleeper() throws Exception {
        HttpServer stub = a429Then200("Retry-After", "0");
        try {
            ResilientClient client = ResilientClient.builder(uri(stub)).clock(clock).random(NO_JITTER).sleeper(sleeps::add).build();

            Exchange e = client.get("/api/scan");

            assertThat(e.attempts()).extracting(Attempt::status).containsExactly(429, 200);
            assertThat(e.attempts()).extracting(Attempt::waitReason).containsExactly("", "Retry-After 0.000s");
            assertThat(sleeps).as("the sleeper only ever waits a positive duration").isEmpty();
        } finally {
            stub.stop(0);
        }
    }

    @Test
    void a429WithNothingLeftAndTheQuotaBackNowIsRetriedNotGivenUp() throws Exception {
        HttpServer stub = a429Then200("RateLimit", "\"a\";r=0;t=0");
        try {
            ResilientClient client = ResilientClient.builder(uri(stub)).clock(clock).random(NO_JITTER).sleeper(sleeps::add).build();

            Exchange e = client.get("/api/scan");

            assertThat(e.status()).isEqualTo(200);
            assertThat(e.attempts()).extracting(Attempt::waitReason).containsExactly("", "quota back in 0.000s");
        } finally {
            stub.stop(0);
        }
    }

    @Test
    void a503WithoutHeadersBacksOffAndSaysTheServerGaveNoWait() throws Exception {
        AtomicInteger requests = new AtomicInteger();
        HttpServer stub = stub(x -> {
            x.sendResponseHeaders(requests.incrementAndGet() == 1 ? 503 : 200, -1);
            x.close();
        });
        try {
            ResilientClient client = ResilientClient.builder(uri(stub)).clock(clock).random(FULL_JITTER).sleeper(sleeps::add).build();

            Exchange e = client.get("/api/scan");

            assertThat(e.attempts()).extracting(Attempt::waitReason).containsExactly("", "back-off (no wait given)");
            assertThat(sleeps).containsExactly(Duration.ofNanos(249_999_000));
        } finally {
            stub.stop(0);
        }
    }

    @Test
    void aServerWaitExactlyAsLongAsTheBudgetLeftIsStillWaited() throws Exception {
        HttpServer stub = a429Then200("Retry-After", "1");
        try {
            ResilientClient client = ResilientClient.builder(uri(stub)).clock(clock).random(NO_JITTER).sleeper(sleeps::add)
                    .maxTotalWait(Duration.ofSeconds(1)).build();

            Exchange e = client.get("/api/scan");

            assertThat(e.status()).isEqualTo(200);
            assertThat(sleeps).containsExactly(Duration.ofSeconds(1));
        } finally {
            stub.stop(0);
        }
    }

    @Test
    void aPacedPauseExactlyAsLongAsTheBudgetIsStillTaken() throws Exception {
        HttpServer stub = oneLeftOfTenBackIn9Seconds();
        try {
            ResilientClient client = ResilientClient.builder(uri(stub)).clock(clock).random(NO_JITTER).sleeper(sleeps::add)
                    .maxTotalWait(Duration.ofSeconds(1)).build();
            client.get("/api/scan");

            Exchange second = client.get("/api/scan");

            assertThat(second.attempts().get(0).waitReason()).isEqualTo("paced: 1 left of 10");
            assertThat(sleeps).containsExactly(Duration.ofSeconds(1));
        } finally {
            stub.stop(0);
        }
    }

    @Test
    void aPacedMomentAlreadyPastNeitherWaitsNorGivesAReason() throws Exception {
        HttpServer stub = oneLeftOfTenBackIn9Seconds();
        try {
            ResilientClient client = ResilientClient.builder(uri(stub)).clock(clock).random(NO_JITTER).sleeper(sleeps::add).build();
            client.get("/api/scan");
            clock.advance(Duration.ofSeconds(5));

            Attempt later = client.get("/api/scan").attempts().get(0);

            assertThat(later.waitedBefore()).isZero();
            assertThat(later.waitReason()).isEmpty();
            assertThat(sleeps).isEmpty();
        } finally {
            stub.stop(0);
        }
    }

    @Test
    void aRefusedConnectionIsRetriedEvenForAPost() throws Exception {
        URI closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = URI.create("http://127.0.0.1:" + s.getLocalPort());
        }
        List<Attempt> attempts = new ArrayList<>();
        ResilientClient client = ResilientClient.builder(closed).clock(clock).random(NO_JITTER).sleeper(sleeps::add)
                .maxRetries(2).onAttempt(attempts::add).build();

        assertThatThrownBy(() -> client.post("/api/login", "{}")).isInstanceOf(ConnectException.class);
        assertThat(attempts).hasSize(3);
    }

    @Test
    void aConnectionThatBreaksIsRetriedForAGetButNotForAPost() throws Exception {
        HttpServer stub = stub(x -> {
            throw new IOException("hang up"); // no answer: the server closes the connection
        });
        try {
            List<Attempt> attempts = new ArrayList<>();
            ResilientClient client = ResilientClient.builder(uri(stub)).clock(clock).random(NO_JITTER).sleeper(sleeps::add)
                    .maxRetries(2).onAttempt(attempts::add).build();

            assertThatThrownBy(() -> client.post("/api/login", "{}")).isInstanceOf(IOException.class);
            assertThat(attempts).as("a POST may have had its effect: not sent again").hasSize(1);

            attempts.clear();
            assertThatThrownBy(() -> client.get("/api/scan")).isInstanceOf(IOException.class);
            assertThat(attempts).as("a GET is idempotent: retried").hasSize(3);
        } finally {
            stub.stop(0);
        }
    }

    @Test
    void aRefusedConnectionIsRetriedWithAZeroBudgetWhileTheBackOffIsZero() throws Exception {
        URI closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = URI.create("http://127.0.0.1:" + s.getLocalPort());
        }
        List<Attempt> attempts = new ArrayList<>();
        ResilientClient client = ResilientClient.builder(closed).clock(clock).random(NO_JITTER).sleeper(sleeps::add)
                .maxTotalWait(Duration.ZERO).maxRetries(2).onAttempt(attempts::add).build();

        assertThatThrownBy(() -> client.get("/api/scan")).isInstanceOf(ConnectException.class);
        assertThat(attempts).hasSize(3);
    }

    @Test
    void connectionBackOffsStopAtTheWaitBudget() throws Exception {
        URI closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = URI.create("http://127.0.0.1:" + s.getLocalPort());
        }
        List<Duration> waited = new ArrayList<>();
        ResilientClient client = ResilientClient.builder(closed).clock(clock).random(FULL_JITTER).sleeper(waited::add)
                .baseDelay(Duration.ofMillis(100)).maxDelay(Duration.ofMillis(100)).maxRetries(4)
                .maxTotalWait(Duration.ofMillis(150)).build();

        assertThatThrownBy(() -> client.get("/api/scan")).isInstanceOf(ConnectException.class);
        assertThat(waited).as("a second 100 ms back-off would pass 150 ms").containsExactly(Duration.ofNanos(99_999_000));
    }

    @Test
    void sendsContentTypeOnlyWithABody() throws Exception {
        List<String> contentTypes = new java.util.concurrent.CopyOnWriteArrayList<>();
        HttpServer stub = stub(x -> {
            contentTypes.add(x.getRequestMethod() + " " + x.getRequestHeaders().getFirst("Content-Type"));
            x.sendResponseHeaders(200, -1);
            x.close();
        });
        try {
            ResilientClient client = ResilientClient.builder(uri(stub)).clock(clock).sleeper(sleeps::add).build();

            client.post("/api/login", "{}");
            client.get("/api/scan");

            assertThat(contentTypes).containsExactly("POST application/json", "GET null");
        } finally {
            stub.stop(0);
        }
    }

    @Test
    void aLimitOfZeroIsNotNamedInThePacingReason() throws Exception {
        HttpServer stub = stub(x -> {
            x.getResponseHeaders().add("X-RateLimit-Limit", "0");
            x.getResponseHeaders().add("X-RateLimit-Remaining", "0");
            x.getResponseHeaders().add("X-RateLimit-Reset", String.valueOf(clock.nowMicros() / 1_000_000 + 3));
            x.sendResponseHeaders(200, -1);
            x.close();
        });
        try {
            ResilientClient client = ResilientClient.builder(uri(stub)).clock(clock).sleeper(sleeps::add).build();
            client.get("/api/scan");

            assertThat(client.get("/api/scan").attempts().get(0).waitReason()).isEqualTo("paced: 0 left");
        } finally {
            stub.stop(0);
        }
    }

    @Test
    void pacesRightUpToTheEdgesOfPaceBelow() {
        ResilientClient.Builder b = ResilientClient.builder(URI.create("http://localhost"));

        assertThat(b.paceBelow(0)).isSameAs(b);
        assertThat(b.paceBelow(1)).isSameAs(b);
    }

    @Test
    void aBodyOfExactlyOneMebibyteIsReadButOneByteMoreIsNot() throws Exception {
        AtomicInteger size = new AtomicInteger();
        HttpServer stub = stub(x -> {
            byte[] body = new byte[size.get()];
            java.util.Arrays.fill(body, (byte) 'a');
            x.sendResponseHeaders(200, body.length);
            try (var out = x.getResponseBody()) {
                out.write(body);
            } catch (IOException clientHungUp) {
                // expected for the longer body
            }
        });
        try {
            ResilientClient client = ResilientClient.builder(uri(stub)).clock(clock).sleeper(sleeps::add).maxRetries(0).build();

            size.set((int) ResilientClient.MAX_BODY_BYTES);
            assertThat(client.get("/api/scan").response().body()).hasSize(1 << 20);

            size.set((int) ResilientClient.MAX_BODY_BYTES + 1);
            assertThatThrownBy(() -> client.get("/api/scan")).isInstanceOf(IOException.class)
                    .hasMessageContaining("response body longer than 1048576 bytes");
        } finally {
            stub.stop(0);
        }
    }

    @Test
    void theSystemSleeperExists() throws InterruptedException {
        Sleeper system = Sleeper.system();

        assertThat(system).isNotNull();
        system.sleep(Duration.ofNanos(1));
    }

    @Test
    void aBodyTooLongIsNotReadOnTheClientHangsUpOnIt() throws Exception {
        java.util.concurrent.atomic.AtomicBoolean hungUp = new java.util.concurrent.atomic.AtomicBoolean();
        HttpServer stub = stub(x -> {
            x.sendResponseHeaders(200, 0); // chunked
            byte[] chunk = new byte[64 * 1024];
            try (var out = x.getResponseBody()) {
                for (int i = 0; i < 1024; i++) { // 64 MiB, unless the client hangs up first
                    out.write(chunk);
                }
            } catch (IOException clientHungUp) {
                hungUp.set(true);
            }
        });
        try {
            ResilientClient client = ResilientClient.builder(uri(stub)).clock(clock).sleeper(sleeps::add).maxRetries(0).build();

            assertThatThrownBy(() -> client.get("/api/scan")).isInstanceOf(IOException.class);

            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).untilTrue(hungUp);
        } finally {
            stub.stop(0);
        }
    }

    @Test
    void pastAThousandAndTwentyFourPacedRoutesTheClientForgetsThemAllNotJustSome() throws Exception {
        HttpServer stub = oneLeftOfTenBackIn9Seconds();
        List<Duration> waits = new ArrayList<>();
        try {
            // Sleeps do not move the clock: every paced route stays paced until forgotten.
            ResilientClient client = ResilientClient.builder(uri(stub)).clock(clock).random(NO_JITTER).sleeper(waits::add).build();
            for (int i = 0; i < 1024; i++) {
                client.get("/r" + i);
            }
            assertThat(waits).as("each route's first request goes at once").isEmpty();
            assertThat(client.get("/r0").attempts().get(0).waitReason()).as("1024 routes are remembered")
                    .isEqualTo("paced: 1 left of 10");

            client.get("/r1024");

            assertThat(client.get("/r0").attempts().get(0).waitedBefore()).as("the 1025th route made it forget them all").isZero();
        } finally {
            stub.stop(0);
        }
    }

    @Test
    void a429WithRetryAfterZeroIsRetriedEvenWhileQuotaIsLeft() throws Exception {
        HttpServer stub = a429Then200("Retry-After", "0", "X-RateLimit-Remaining", "3");
        try {
            ResilientClient client = ResilientClient.builder(uri(stub)).clock(clock).random(NO_JITTER).sleeper(sleeps::add).build();

            Exchange e = client.get("/api/scan");

            assertThat(e.gaveUp()).as("told when to come back: now").isEmpty();
            assertThat(e.attempts()).extracting(Attempt::status).containsExactly(429, 200);
        } finally {
            stub.stop(0);
        }
    }

    @Test
    void aResponseWithPlentyLeftEndsPacingForTheNextRequest() throws Exception {
        AtomicInteger requests = new AtomicInteger();
        HttpServer stub = stub(x -> {
            x.getResponseHeaders().add("RateLimit-Policy", "\"a\";q=10;w=10");
            x.getResponseHeaders().add("RateLimit", requests.incrementAndGet() == 1 ? "\"a\";r=1;t=9" : "\"a\";r=9;t=1");
            x.sendResponseHeaders(200, -1);
            x.close();
        });
        try {
            ResilientClient client = ResilientClient.builder(uri(stub)).clock(clock).random(NO_JITTER)
                    .sleeper(d -> { sleeps.add(d); clock.advance(d); }).build();
            client.get("/api/scan");
            assertThat(client.get("/api/scan").attempts().get(0).waitedBefore()).as("paced after 1 of 10 left").isEqualTo(Duration.ofSeconds(1));

            Attempt third = client.get("/api/scan").attempts().get(0);

            assertThat(third.waitedBefore()).as("9 of 10 left: no pacing").isZero();
            assertThat(sleeps).containsExactly(Duration.ofSeconds(1));
        } finally {
            stub.stop(0);
        }
    }

    @Test
    void theHttpClientOptionChainsLikeTheOthers() {
        ResilientClient.Builder b = ResilientClient.builder(URI.create("http://localhost"));

        assertThat(b.httpClient(java.net.http.HttpClient.newHttpClient())).isSameAs(b);
    }

    @Test
    void aRuntimeExceptionOrErrorFromTheHttpClientIsRethrownAsItIsNotRetriedAsAnIoError() {
        List<Attempt> attempts = new ArrayList<>();
        IllegalStateException bug = new IllegalStateException("bug in the HTTP client");
        ResilientClient failing = ResilientClient.builder(URI.create("http://localhost")).httpClient(failingWith(bug))
                .clock(clock).sleeper(sleeps::add).onAttempt(attempts::add).build();
        assertThatThrownBy(() -> failing.get("/api/scan")).isSameAs(bug);

        StackOverflowError error = new StackOverflowError();
        ResilientClient erring = ResilientClient.builder(URI.create("http://localhost")).httpClient(failingWith(error))
                .clock(clock).sleeper(sleeps::add).onAttempt(attempts::add).build();
        assertThatThrownBy(() -> erring.get("/api/scan")).isSameAs(error);

        assertThat(attempts).as("neither is a failed try to record and retry").isEmpty();
        assertThat(sleeps).isEmpty();
    }

    /** An HTTP client whose every exchange fails with {@code failure}. */
    private static java.net.http.HttpClient failingWith(Throwable failure) {
        java.net.http.HttpClient real = java.net.http.HttpClient.newHttpClient();
        return new java.net.http.HttpClient() {
            @Override public Optional<java.net.CookieHandler> cookieHandler() { return real.cookieHandler(); }
            @Override public Optional<Duration> connectTimeout() { return real.connectTimeout(); }
            @Override public Redirect followRedirects() { return real.followRedirects(); }
            @Override public Optional<java.net.ProxySelector> proxy() { return real.proxy(); }
            @Override public javax.net.ssl.SSLContext sslContext() { return real.sslContext(); }
            @Override public javax.net.ssl.SSLParameters sslParameters() { return real.sslParameters(); }
            @Override public Optional<java.net.Authenticator> authenticator() { return real.authenticator(); }
            @Override public Version version() { return real.version(); }
            @Override public Optional<java.util.concurrent.Executor> executor() { return real.executor(); }
            @Override
            public <T> java.net.http.HttpResponse<T> send(java.net.http.HttpRequest r, java.net.http.HttpResponse.BodyHandler<T> h) {
                throw new UnsupportedOperationException();
            }
            @Override
            public <T> java.util.concurrent.CompletableFuture<java.net.http.HttpResponse<T>> sendAsync(java.net.http.HttpRequest r,
                    java.net.http.HttpResponse.BodyHandler<T> h) {
                return java.util.concurrent.CompletableFuture.failedFuture(failure);
            }
            @Override
            public <T> java.util.concurrent.CompletableFuture<java.net.http.HttpResponse<T>> sendAsync(java.net.http.HttpRequest r,
                    java.net.http.HttpResponse.BodyHandler<T> h, java.net.http.HttpResponse.PushPromiseHandler<T> p) {
                return java.util.concurrent.CompletableFuture.failedFuture(failure);
            }
        };
    }

    /** A server whose every answer says 1 of 10 left, the quota back in 9 s. */
    private static HttpServer oneLeftOfTenBackIn9Seconds() throws IOException {
        return stub(x -> {
            x.getResponseHeaders().add("RateLimit-Policy", "\"a\";q=10;w=10");
            x.getResponseHeaders().add("RateLimit", "\"a\";r=1;t=9");
            x.sendResponseHeaders(200, -1);
            x.close();
        });
    }

    /** A server answering its first request with a 429 carrying {@code headers} (name, value, …), then 200s. */
    private static HttpServer a429Then200(String... headers) throws IOException {
        AtomicInteger requests = new AtomicInteger();
        return stub(x -> {
            if (requests.incrementAndGet() == 1) {
                for (int i = 0; i < headers.length; i += 2) {
                    x.getResponseHeaders().add(headers[i], headers[i + 1]);
                }
                x.sendResponseHeaders(429, -1);
            } else {
                x.sendResponseHeaders(200, -1);
            }
            x.close();
        });
    }

    /** A server on the loopback address answering every request with {@code handler}. */
    private static HttpServer stub(HttpHandler handler) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/", handler);
        server.start();
        return server;
    }

    private static URI uri(HttpServer server) {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    private Instant now() {
        long micros = clock.nowMicros();
        return Instant.ofEpochSecond(micros / 1_000_000, (micros % 1_000_000) * 1_000);
    }
}
