package dev.ratelimit.store.redis;

import dev.ratelimit.Decision;
import dev.ratelimit.FailureMode;
import dev.ratelimit.FixedWindow;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import dev.ratelimit.StoreHealth;
import dev.ratelimit.Verdict;
import dev.ratelimit.testing.RedisServer;
import dev.ratelimit.testing.Resp;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redis dies, restarts empty, or stops answering: each failure mode does what it promises, no
 * exception escapes, the circuit breaker (driven by a manual local clock) opens and closes, and
 * decisions are shared again once Redis is back, without restarting anything.
 */
class RedisOutageTest {
    private static final Duration LONG = Duration.ofDays(400);
    private static final Limit LIMIT = Limit.of("outage", Policy.fixedWindow(4, LONG));

    private static final String SECRET = "apikey:sk-outage-7f3a";

    private RedisServer redis;
    private final ManualClock clock = new ManualClock(Instant.parse("2026-03-02T10:00:00Z"));
    private final RecordingListener listener = new RecordingListener();
    private final List<String> health = listener.health;
    private final List<Throwable> errors = listener.errors;

    @BeforeEach
    void startRedis() {
        redis = RedisServer.start();
    }

    @AfterEach
    void stopRedis() {
        redis.close();
    }

    private RedisStore store(FailureMode mode) {
        RedisStore.Builder builder = RedisStore.builder().url(redis.url()).failureMode(mode).clock(clock).listener(listener)
                .circuitBreaker(3, Duration.ofSeconds(5));
        return (mode == FailureMode.LOCAL_FALLBACK ? builder.fallbackShare(0.5) : builder).build();
    }

    @Test
    void failOpenAllowsWithoutCountingLogsOnceAndSharesAgainAfterARestart() {
        PrintStream stderr = System.err;
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        try (RedisStore a = store(FailureMode.FAIL_OPEN); RedisStore b = store(FailureMode.FAIL_OPEN)) {
            RateLimiter onA = a.limiter(LIMIT);
            RateLimiter onB = b.limiter(LIMIT);
            assertThat(onA.tryAcquire(SECRET).remaining()).isEqualTo(3);
            assertThat(onB.tryAcquire(SECRET).remaining()).isEqualTo(2);

            System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
            redis.kill();
            for (int i = 0; i < 20; i++) {
                Decision d = onA.tryAcquire(SECRET);
                assertThat(d.verdict()).isEqualTo(Verdict.ALLOWED);
                assertThat(d.source()).isEqualTo(Source.FAIL_OPEN);
                assertThat(d.policy()).isEqualTo(LIMIT.policies().get(0));
            }
            assertThat(onA.tryAcquire(SECRET, 5).verdict()).isEqualTo(Verdict.COST_EXCEEDS_LIMIT);
            assertThat(onB.tryAcquire(SECRET).source()).isEqualTo(Source.FAIL_OPEN);
            assertThat(a.health()).isEqualTo(StoreHealth.CIRCUIT_OPEN);
            assertThat(b.health()).isEqualTo(StoreHealth.DEGRADED);
            assertThat(errors).hasSize(4); // 3 of A's calls before its circuit opened, 1 of B's

            redis.restart();
            assertThat(onA.tryAcquire(SECRET).source()).as("circuit still open").isEqualTo(Source.FAIL_OPEN);
            clock.advance(Duration.ofSeconds(5));
            Decision probe = onA.tryAcquire(SECRET);
            assertThat(probe.source()).isEqualTo(Source.STORE);
            assertThat(probe.remaining()).as("Redis restarted empty").isEqualTo(3);
            Decision shared = onB.tryAcquire(SECRET);
            assertThat(shared.source()).isEqualTo(Source.STORE);
            assertThat(shared.remaining()).isEqualTo(2);
            assertThat(a.health()).isEqualTo(StoreHealth.UP);
        } finally {
            System.setErr(stderr);
        }
        assertThat(health).containsExactly("UP->DEGRADED", "DEGRADED->CIRCUIT_OPEN", "UP->DEGRADED",
                "CIRCUIT_OPEN->UP", "DEGRADED->UP");
        String logged = log.toString(StandardCharsets.UTF_8);
        assertThat(logged.lines().filter(l -> l.contains("is failing; deciding by failure mode FAIL_OPEN"))).hasSize(2);
        assertThat(logged.lines().filter(l -> l.contains("has recovered"))).hasSize(2);
        assertThat(logged).doesNotContain(SECRET);
    }

    @Test
    void aListenerThrowingALinkageErrorChangesNoDecision() {
        RateLimitListener mismatched = new RateLimitListener() {
            @Override
            public void onStoreCall(long micros, boolean ok) {
                throw new NoSuchMethodError("io.micrometer.core.instrument.Timer.record");
            }

            @Override
            public void onStoreError(Throwable error) {
                throw new NoClassDefFoundError("io/micrometer/core/instrument/Counter");
            }

            @Override
            public void onHealthChange(StoreHealth previous, StoreHealth current) {
                throw new NoClassDefFoundError("io/micrometer/core/instrument/Gauge");
            }
        };
        decidesAsIfUnheardThroughAnOutageAndBack(mismatched);
    }

    /**
     * A listener in Kotlin or Groovy throws checked exceptions without declaring them; one must change
     * no decision either, nor leave {@code tryAcquire}.
     */
    @Test
    void aListenerThrowingACheckedExceptionChangesNoDecision() {
        RateLimitListener undeclared = new RateLimitListener() {
            @Override
            public void onStoreCall(long micros, boolean ok) {
                throw RedisOutageTest.<RuntimeException>undeclared(new IOException("metrics agent socket closed"));
            }

            @Override
            public void onStoreError(Throwable error) {
                throw RedisOutageTest.<RuntimeException>undeclared(new IOException("metrics agent socket closed"));
            }

            @Override
            public void onHealthChange(StoreHealth previous, StoreHealth current) {
                throw RedisOutageTest.<RuntimeException>undeclared(new IOException("metrics agent socket closed"));
            }
        };
        decidesAsIfUnheardThroughAnOutageAndBack(undeclared);
    }

    /**
     * A decision, Redis killed (the breaker opens after 3 failures), restarted, and the probe one open
     * period later: the same decisions and health as with no listener, whatever {@code listener} throws.
     */
    private void decidesAsIfUnheardThroughAnOutageAndBack(RateLimitListener listener) {
        try (RedisStore store = RedisStore.builder().url(redis.url()).failureMode(FailureMode.FAIL_CLOSED).clock(clock)
                .listener(listener).circuitBreaker(3, Duration.ofSeconds(5)).build()) {
            RateLimiter limiter = store.limiter(LIMIT);
            assertThat(limiter.tryAcquire(SECRET).remaining()).isEqualTo(3);

            redis.kill();
            for (int i = 0; i < 4; i++) {
                assertThat(limiter.tryAcquire(SECRET).verdict()).isEqualTo(Verdict.STORE_UNAVAILABLE);
            }
            assertThat(store.health()).isEqualTo(StoreHealth.CIRCUIT_OPEN);

            redis.restart();
            clock.advance(Duration.ofSeconds(5));
            Decision probe = limiter.tryAcquire(SECRET);
            assertThat(probe.source()).isEqualTo(Source.STORE);
            assertThat(store.health()).isEqualTo(StoreHealth.UP);
        }
    }

    /** Throws {@code failure} whatever it is, as code in a language without checked exceptions does. */
    @SuppressWarnings("unchecked")
    private static <T extends Throwable> T undeclared(Throwable failure) throws T {
        throw (T) failure;
    }

    /**
     * A Redis restart between two decisions breaks the pooled connection: the next call fails fast and
     * is sent once more on a fresh connection, which answers. The listener hears one successful store
     * call, timed over both attempts, and no error: the health never leaves UP.
     */
    @Test
    void aCallSentAgainAfterARestartIsOneSuccessfulStoreCallAndNoError() {
        List<Long> calls = new CopyOnWriteArrayList<>();
        RateLimitListener counting = new RateLimitListener() {
            @Override
            public void onStoreCall(long micros, boolean ok) {
                calls.add(ok ? 1L : 0L);
            }

            @Override
            public void onStoreError(Throwable error) {
                errors.add(error);
            }

            @Override
            public void onHealthChange(StoreHealth previous, StoreHealth current) {
                health.add(previous + "->" + current);
            }
        };
        try (RedisStore store = RedisStore.builder().url(redis.url()).failureMode(FailureMode.FAIL_CLOSED).clock(clock)
                .listener(counting).build()) {
            RateLimiter limiter = store.limiter(LIMIT);
            assertThat(limiter.tryAcquire("client").source()).isEqualTo(Source.STORE);

            redis.restart();
            Decision after = limiter.tryAcquire("client");

            assertThat(after.source()).isEqualTo(Source.STORE);
            assertThat(after.remaining()).as("Redis restarted empty").isEqualTo(3);
            assertThat(calls).as("one successful call each decision, the failed attempt folded in").containsExactly(1L, 1L);
            assertThat(errors).isEmpty();
            assertThat(health).isEmpty();
        }
    }

    @Test
    void failClosedSaysTheStoreIsUnavailableAndWhenToComeBack() {
        try (RedisStore store = store(FailureMode.FAIL_CLOSED)) {
            RateLimiter limiter = store.limiter(LIMIT);
            assertThat(limiter.tryAcquire("client").source()).isEqualTo(Source.STORE);
            redis.kill();
            Decision degraded = limiter.tryAcquire("client");
            assertThat(degraded.verdict()).isEqualTo(Verdict.STORE_UNAVAILABLE);
            assertThat(degraded.source()).isEqualTo(Source.FAIL_CLOSED);
            assertThat(degraded.retryAfterMicros()).as("one open period").isEqualTo(5_000_000);
            limiter.tryAcquire("client");
            limiter.tryAcquire("client");
            assertThat(store.health()).isEqualTo(StoreHealth.CIRCUIT_OPEN);
            clock.advance(Duration.ofSeconds(2));
            Decision open = limiter.tryAcquire("client");
            assertThat(open.verdict()).isEqualTo(Verdict.STORE_UNAVAILABLE);
            assertThat(open.retryAfterMicros()).as("rest of the open period").isEqualTo(3_000_000);

            clock.advance(Duration.ofSeconds(3));
            assertThat(limiter.tryAcquire("client").verdict()).as("failed probe").isEqualTo(Verdict.STORE_UNAVAILABLE);
            assertThat(limiter.tryAcquire("client").retryAfterMicros()).as("open again").isEqualTo(5_000_000);

            redis.restart();
            clock.advance(Duration.ofSeconds(5));
            Decision back = limiter.tryAcquire("client");
            assertThat(back.source()).isEqualTo(Source.STORE);
            assertThat(back.remaining()).isEqualTo(3);
        }
    }

    @Test
    void localFallbackDecidesInMemoryWithThisInstancesShare() {
        try (RedisStore store = store(FailureMode.LOCAL_FALLBACK)) {
            RateLimiter limiter = store.limiter(LIMIT);
            redis.kill();
            Decision first = limiter.tryAcquire("client");
            assertThat(first.source()).isEqualTo(Source.LOCAL_FALLBACK);
            assertThat(first.verdict()).isEqualTo(Verdict.ALLOWED);
            assertThat(first.policy()).isEqualTo(new FixedWindow(2, LONG));
            // The limit the fallback's decisions describe, policy for policy, as header writers ask for it.
            assertThat(limiter.limitFor(Source.LOCAL_FALLBACK).policies()).singleElement().isSameAs(first.policy());
            assertThat(limiter.limitFor(Source.STORE)).isSameAs(limiter.limit()).isEqualTo(LIMIT);
            assertThat(first.limit()).isEqualTo(2);
            assertThat(first.remaining()).isEqualTo(1);
            assertThat(limiter.tryAcquire("client").remaining()).isZero();
            Decision rejected = limiter.tryAcquire("client");
            assertThat(rejected.verdict()).isEqualTo(Verdict.REJECTED);
            assertThat(rejected.source()).isEqualTo(Source.LOCAL_FALLBACK);
            assertThat(limiter.tryAcquire("other-client").verdict()).isEqualTo(Verdict.ALLOWED);

            Decision tooBigForTheShare = limiter.tryAcquire("third-client", 3);
            assertThat(tooBigForTheShare.verdict()).as("passable once Redis is back").isEqualTo(Verdict.REJECTED);
            assertThat(tooBigForTheShare.retryAfterMicros()).isEqualTo(5_000_000);
            assertThat(limiter.tryAcquire("third-client", 5).verdict()).isEqualTo(Verdict.COST_EXCEEDS_LIMIT);
        }
    }

    @Test
    void aNeverPassableCostDuringAnOutageNamesTheFallbacksShareOfThePolicy() {
        Limit composite = Limit.of("outage-composite", Policy.tokenBucket(10, 1, Duration.ofSeconds(1)), Policy.fixedWindow(4, LONG));
        try (RedisStore store = store(FailureMode.LOCAL_FALLBACK)) {
            RateLimiter limiter = store.limiter(composite);
            redis.kill();
            Decision never = limiter.tryAcquire("client", 5);
            assertThat(never.verdict()).isEqualTo(Verdict.COST_EXCEEDS_LIMIT);
            assertThat(never.source()).isEqualTo(Source.LOCAL_FALLBACK);
            // Not the 4 Redis enforces: the headers describe it among the share's policies, as they describe the others.
            assertThat(limiter.limitFor(never.source()).policies()).contains(never.policy());
            assertThat(never.policy()).isEqualTo(Policy.fixedWindow(2, LONG));
            assertThat(never.limit()).isEqualTo(2);
        }
    }

    @Test
    void aCallThatTimesOutOnAFrozenRedisOpensNoReplacementConnectionOnTheCallersTime() {
        // commons-pool2 2.13 replaces an invalidated connection at once, in the caller's thread: the
        // new connection's handshake waited out a second timeout on the frozen Redis, so a decision
        // took twice the timeout. The pool is pinned to 2.12.1, which replaces it only for a waiter.
        try (RedisStore store = store(FailureMode.FAIL_OPEN)) {
            RateLimiter limiter = store.limiter(LIMIT);
            assertThat(limiter.tryAcquire("client").source()).isEqualTo(Source.STORE);
            long before = connectionsReceived();
            redis.pause();
            try {
                assertThat(limiter.tryAcquire("client").source()).isEqualTo(Source.FAIL_OPEN);
            } finally {
                redis.resume();
            }
            // The only new connection is this test's own INFO (the server counts one it accepts
            // after the thaw, even if the client gave up on it while it was frozen).
            assertThat(connectionsReceived() - before).as("connections made while Redis was frozen, plus this INFO").isEqualTo(1);
        }
    }

    private long connectionsReceived() {
        return Long.parseLong(Resp.info(redis.port(), "stats", "total_connections_received"));
    }

    @Test
    void aPausedRedisCostsATimeoutAtMostThenTheBreakerOpensAndCloses() {
        try (RedisStore store = store(FailureMode.FAIL_CLOSED)) {
            RateLimiter limiter = store.limiter(LIMIT);
            assertThat(limiter.tryAcquire("client").source()).isEqualTo(Source.STORE);
            redis.clientPause(1_500);
            for (int i = 0; i < 3; i++) {
                long started = System.nanoTime();
                Decision d = limiter.tryAcquire("client");
                long tookMillis = (System.nanoTime() - started) / 1_000_000;
                assertThat(d.verdict()).isEqualTo(Verdict.STORE_UNAVAILABLE);
                // The read timeout is 100 ms; the pause lasts 1.5 s. Generous bound, far from both.
                assertThat(tookMillis).as("call %d took", i).isLessThan(1_000);
            }
            assertThat(store.health()).isEqualTo(StoreHealth.CIRCUIT_OPEN);
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> Resp.ping(redis.port()));
            long decisionCalls = redis.decisionCalls();
            for (int i = 0; i < 100; i++) {
                assertThat(limiter.tryAcquire("client").verdict()).isEqualTo(Verdict.STORE_UNAVAILABLE);
            }
            assertThat(redis.decisionCalls()).as("no call while the circuit is open").isEqualTo(decisionCalls);

            clock.advance(Duration.ofSeconds(5));
            Decision probe = limiter.tryAcquire("client");
            assertThat(probe.source()).isEqualTo(Source.STORE);
            assertThat(store.health()).isEqualTo(StoreHealth.UP);
        }
        assertThat(health).containsExactly("UP->DEGRADED", "DEGRADED->CIRCUIT_OPEN", "CIRCUIT_OPEN->UP");
    }

    @Test
    void aClockSteppedBackNeitherKeepsTheBreakerOpenNorStretchesItsRetryHint() {
        try (RedisStore store = store(FailureMode.FAIL_CLOSED)) {
            RateLimiter limiter = store.limiter(LIMIT);
            assertThat(limiter.tryAcquire("client").source()).isEqualTo(Source.STORE);
            redis.kill();
            for (int i = 0; i < 3; i++) {
                limiter.tryAcquire("client");
            }
            assertThat(store.health()).isEqualTo(StoreHealth.CIRCUIT_OPEN);

            // A custom Clock stepped back an hour (Clock.system() is monotonic and never does this).
            clock.advance(Duration.ofHours(-1));
            Decision stepped = limiter.tryAcquire("client");
            assertThat(stepped.verdict()).isEqualTo(Verdict.STORE_UNAVAILABLE);
            assertThat(stepped.retryAfterMicros()).as("at most one open period, not the hour stepped back")
                    .isLessThanOrEqualTo(5_000_000);

            redis.restart();
            clock.advance(Duration.ofSeconds(5));
            Decision back = limiter.tryAcquire("client");
            assertThat(back.source()).as("one open period later the breaker probes and Redis decides")
                    .isEqualTo(Source.STORE);
            assertThat(store.health()).isEqualTo(StoreHealth.UP);
        }
    }

    @Test
    void aStoppedProcessIsATimeoutNotAHang() {
        try (RedisStore store = store(FailureMode.LOCAL_FALLBACK)) {
            RateLimiter limiter = store.limiter(LIMIT);
            assertThat(limiter.tryAcquire("client").source()).isEqualTo(Source.STORE);
            redis.pause();
            try {
                long started = System.nanoTime();
                Decision d = limiter.tryAcquire("client");
                assertThat((System.nanoTime() - started) / 1_000_000).isLessThan(5_000);
                assertThat(d.source()).isEqualTo(Source.LOCAL_FALLBACK);
            } finally {
                redis.resume();
            }
            assertThat(limiter.tryAcquire("client").source()).isEqualTo(Source.STORE);
        }
    }

    @Test
    void aConnectTimeoutIsATimeoutAndIsNotWaitedOutTwice() throws Exception {
        // A frozen Redis whose accept queue is full: the kernel drops new SYNs, so connecting times out.
        try (RedisServer frozen = RedisServer.start(List.of("--tcp-backlog", "1"));
             RedisStore store = RedisStore.builder().url(frozen.url()).clock(clock)
                     .connectTimeout(Duration.ofMillis(1_500)).readTimeout(Duration.ofMillis(100)).build()) {
            frozen.pause();
            List<Socket> queued = new ArrayList<>();
            try {
                for (int i = 0; i < 8; i++) {
                    Socket s = new Socket();
                    try {
                        s.connect(new InetSocketAddress("127.0.0.1", frozen.port()), 200);
                        queued.add(s);
                    } catch (IOException full) {
                        s.close();
                    }
                }
                long started = System.nanoTime();
                Decision d = store.limiter(LIMIT).tryAcquire("client");
                long tookMillis = (System.nanoTime() - started) / 1_000_000;
                assertThat(d.source()).isEqualTo(Source.LOCAL_FALLBACK);
                // One connect timeout (1.5 s), not one more on a retry (at least 3 s): a timed-out call is never retried.
                assertThat(tookMillis).as("decision took, ms").isBetween(1_400L, 2_900L);
            } finally {
                for (Socket s : queued) {
                    s.close();
                }
                frozen.resume();
            }
        }
    }

    @Test
    void aCostOfExactlyTheLimitWhileRedisIsDownIsDecidedByTheFailureModeNotRefusedForEver() {
        redis.kill();
        try (RedisStore closed = store(FailureMode.FAIL_CLOSED); RedisStore open = store(FailureMode.FAIL_OPEN)) {
            Decision atTheLimit = closed.limiter(LIMIT).tryAcquire("client", 4);
            assertThat(atTheLimit.verdict()).as("passable once Redis is back").isEqualTo(Verdict.STORE_UNAVAILABLE);
            assertThat(atTheLimit.source()).isEqualTo(Source.FAIL_CLOSED);
            assertThat(closed.limiter(LIMIT).tryAcquire("client", 5).verdict()).isEqualTo(Verdict.COST_EXCEEDS_LIMIT);

            Decision allowed = open.limiter(LIMIT).tryAcquire("client", 4);
            assertThat(allowed.verdict()).isEqualTo(Verdict.ALLOWED);
            assertThat(allowed.source()).isEqualTo(Source.FAIL_OPEN);
        }
    }

    /**
     * A restart breaks every pooled connection, not only the one the next call takes: the call sent
     * again goes on a fresh connection, not on another dead one from the pool.
     */
    @Test
    void aCallSentAgainAfterARestartGoesOnAFreshConnectionWhateverElseThePoolHeld() throws Exception {
        try (RedisStore store = RedisStore.builder().url(redis.url()).failureMode(FailureMode.FAIL_CLOSED).clock(clock)
                .pipelining(false).poolSize(4).readTimeout(Duration.ofSeconds(5)).build()) {
            RateLimiter limiter = store.limiter(LIMIT);
            assertThat(limiter.tryAcquire("warm-up").source()).isEqualTo(Source.STORE);
            // Three calls held together by a pause (a second, so that all are in flight on a loaded
            // machine), each on a pooled connection of its own.
            redis.call("CLIENT", "PAUSE", 1_000, "WRITE");
            HeldCalls.decidedTogetherByRedis(limiter, List.of("held-0", "held-1", "held-2"));

            redis.restart();
            Decision after = limiter.tryAcquire("client");
            assertThat(after.source()).isEqualTo(Source.STORE);
            assertThat(after.remaining()).isEqualTo(3);
        }
    }

    @Test
    void aStoreBuildsAndFollowsItsFailureModeWhileRedisWasNeverThere() {
        redis.kill();
        try (RedisStore store = RedisStore.builder().url("redis-cluster://127.0.0.1:" + redis.port())
                .failureMode(FailureMode.FAIL_OPEN).clock(clock).build()) {
            Decision d = store.limiter(LIMIT).tryAcquire("client");
            assertThat(d.source()).isEqualTo(Source.FAIL_OPEN);
            assertThat(store.health()).isEqualTo(StoreHealth.DEGRADED);
        }
    }

    @Test
    void aCrowdArrivingWhileAClusterHangsAtFirstUseWaitsForOneAttemptNotForEachOthers() throws Exception {
        // The cluster client is created on first use, which waits for a reply from a seed node. Callers
        // arriving together must share that attempt, not queue for one attempt each.
        int callers = 16;
        try (RedisStore store = RedisStore.builder().url("redis-cluster://127.0.0.1:" + redis.port())
                .connectTimeout(Duration.ofMillis(100)).readTimeout(Duration.ofMillis(100)).build()) {
            RateLimiter limiter = store.limiter(LIMIT);
            redis.pause();
            ExecutorService threads = Executors.newFixedThreadPool(callers);
            try {
                CountDownLatch go = new CountDownLatch(1);
                List<Future<Long>> tookMillis = new ArrayList<>();
                for (int i = 0; i < callers; i++) {
                    String client = "client-" + i;
                    tookMillis.add(threads.submit(() -> {
                        go.await();
                        long started = System.nanoTime();
                        assertThat(limiter.tryAcquire(client).source()).isEqualTo(Source.LOCAL_FALLBACK);
                        return (System.nanoTime() - started) / 1_000_000;
                    }));
                }
                go.countDown();
                long slowest = 0;
                for (Future<Long> f : tookMillis) {
                    slowest = Math.max(slowest, f.get());
                }
                // One attempt takes about one read timeout (100 ms), a retry another: the README's worst
                // case is about 700 ms. When each caller made its own attempt in turn, the last of 16
                // waited for about 32 of them (3.2 s); the bound leaves room for a slow machine.
                assertThat(slowest).as("slowest of %d callers, ms", callers).isLessThan(1_500);
            } finally {
                threads.shutdownNow();
                redis.resume();
            }
        }
    }
}
