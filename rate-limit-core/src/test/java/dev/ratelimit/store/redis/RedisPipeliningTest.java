package dev.ratelimit.store.redis;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import dev.ratelimit.Verdict;
import dev.ratelimit.testing.RedisServer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Concurrent decisions share round trips: callers that arrive while others wait for Redis go
 * together in one pipeline, so a crowd uses a few connections, each decision stays exact, and a
 * failed batch leaves every caller to its failure mode. Redis is held with {@code CLIENT PAUSE} so
 * that the callers are sure to overlap.
 */
class RedisPipeliningTest {
    private static final int CALLERS = 24;
    private static final int LIMIT = 20;
    private static final Limit CROWD = Limit.of("crowd", Policy.tokenBucket(LIMIT, LIMIT, Duration.ofDays(400)));

    @Test
    void aCrowdOfCallersSharesAFewConnectionsAndIsAdmittedExactly() throws Exception {
        try (RedisServer redis = RedisServer.start();
             RedisStore store = store(redis, true)) {
            List<Decision> decisions = crowd(redis, store.limiter(CROWD));
            assertThat(decisions).allMatch(d -> d.source() == Source.STORE);
            assertThat(decisions).filteredOn(d -> d.verdict() == Verdict.ALLOWED).hasSize(LIMIT);
            assertThat(decisions).filteredOn(d -> d.verdict() == Verdict.REJECTED).hasSize(CALLERS - LIMIT);
            assertThat(connections(redis)).isBetween(1, CallBatcher.MAX_SENDERS);
        }
    }

    @Test
    void withoutPipeliningEachWaitingCallerHoldsItsOwnConnection() throws Exception {
        try (RedisServer redis = RedisServer.start();
             RedisStore store = store(redis, false)) {
            List<Decision> decisions = crowd(redis, store.limiter(CROWD));
            assertThat(decisions).filteredOn(d -> d.verdict() == Verdict.ALLOWED).hasSize(LIMIT);
            assertThat(connections(redis)).isGreaterThan(CallBatcher.MAX_SENDERS);
        }
    }

    @Test
    void aBatchThatFailsLeavesEveryCallerToItsFailureMode() throws Exception {
        try (RedisServer redis = RedisServer.start();
             RedisStore store = store(redis, true)) {
            RateLimiter limiter = store.limiter(CROWD);
            assertThat(limiter.tryAcquire("warm-up").source()).isEqualTo(Source.STORE);
            redis.pause(); // frozen: calls in flight wait for a reply that never comes
            CountDownLatch started = new CountDownLatch(CALLERS);
            ExecutorService threads = Executors.newFixedThreadPool(CALLERS);
            try {
                List<Future<Decision>> futures = new ArrayList<>();
                for (int i = 0; i < CALLERS; i++) {
                    futures.add(threads.submit(() -> {
                        started.countDown();
                        return limiter.tryAcquire("crowd");
                    }));
                }
                Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> started.getCount() == 0);
                redis.kill(); // every connection breaks, in flight or not
                for (Future<Decision> f : futures) {
                    assertThat(f.get().source()).isEqualTo(Source.LOCAL_FALLBACK);
                }
            } finally {
                threads.shutdownNow();
            }
        }
    }

    @Test
    void aCrowdWaitingBehindAFrozenRedisWaitsForOneTimeoutNotForOneBatchAfterAnother() throws Exception {
        // More callers than the senders' batches hold (4 x 64): before, those left queued were sent
        // to the frozen Redis batch after batch, each batch waiting out the timeout again.
        int callers = 600;
        Duration timeout = Duration.ofSeconds(1);
        try (RedisServer redis = RedisServer.start();
             RedisStore store = RedisStore.builder().url(redis.url()).readTimeout(timeout).build()) {
            RateLimiter limiter = store.limiter(CROWD);
            assertThat(limiter.tryAcquire("warm-up").source()).isEqualTo(Source.STORE);
            ExecutorService threads = Executors.newFixedThreadPool(callers);
            try {
                CountDownLatch ready = new CountDownLatch(callers);
                CountDownLatch go = new CountDownLatch(1);
                List<Future<Long>> tookMillis = new ArrayList<>();
                for (int i = 0; i < callers; i++) {
                    String client = "client-" + i;
                    tookMillis.add(threads.submit(() -> {
                        ready.countDown();
                        go.await();
                        long started = System.nanoTime();
                        assertThat(limiter.tryAcquire(client).source()).isEqualTo(Source.LOCAL_FALLBACK);
                        return (System.nanoTime() - started) / 1_000_000;
                    }));
                }
                ready.await();
                redis.pause();
                go.countDown();
                long slowest = 0;
                for (Future<Long> f : tookMillis) {
                    slowest = Math.max(slowest, f.get());
                }
                // The timeout in flight, and the caller's own if it queued just after the first batches
                // failed, before the breaker opened (plus room for 600 threads on a busy 2-core machine).
                // Not the five or six timeouts of batches sent one after another (5.0 s and 6.0 s before).
                assertThat(slowest).isLessThan(timeout.multipliedBy(7).dividedBy(2).toMillis());
            } finally {
                threads.shutdownNow();
            }
        }
    }

    @Test
    @Tag("virtual-threads")
    @EnabledForJreRange(min = JRE.JAVA_21, disabledReason = "virtual threads need Java 21+: run with -DvirtualThreadsJvm=<a Java 21+ java> (as .ci/run does)")
    void aVirtualThreadInterruptedWhileItsCallIsOutGetsRedisDecisionAndNoOutageIsSeen() throws Exception {
        // Interrupting a virtual thread blocked on a socket closes the socket. Before, a decision
        // cancelled so (Future.cancel(true), a structured task scope shutting down) broke its pooled
        // connection: the call failed and was counted as Redis failing (a warning, health DEGRADED, the
        // breaker a step nearer opening), the decision followed the failure mode though Redis had run
        // the script, and the other calls of its batch failed with it.
        List<String> storeErrors = new CopyOnWriteArrayList<>();
        try (RedisServer redis = RedisServer.start();
             RedisStore store = RedisStore.builder().url(redis.url()).readTimeout(Duration.ofSeconds(10))
                     .failureMode(dev.ratelimit.FailureMode.FAIL_CLOSED)
                     .listener(new dev.ratelimit.RateLimitListener() {
                         @Override
                         public void onStoreError(Throwable error) {
                             storeErrors.add(String.valueOf(error));
                         }
                     }).build()) {
            RateLimiter limiter = store.limiter(CROWD);
            assertThat(limiter.tryAcquire("warm-up").source()).isEqualTo(Source.STORE);
            ExecutorService virtualThreads = (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
            try {
                redis.pause();
                List<Thread> caller = new CopyOnWriteArrayList<>();
                Future<Decision> decision = virtualThreads.submit(() -> {
                    caller.add(Thread.currentThread());
                    return limiter.tryAcquire("cancelled");
                });
                // Its call is out: the caller waits in the batcher's send (before: in the socket read under it).
                Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> caller.size() == 1
                        && Arrays.stream(caller.get(0).getStackTrace()).anyMatch(f -> f.getClassName().equals(CallBatcher.class.getName())
                        && (f.getMethodName().equals("send") || f.getMethodName().equals("sendShielded"))));
                caller.get(0).interrupt();
                redis.resume();
                Decision d = decision.get(10, java.util.concurrent.TimeUnit.SECONDS);
                assertThat(d.source()).as("decided by Redis").isEqualTo(Source.STORE);
                assertThat(d.verdict()).isEqualTo(Verdict.ALLOWED);
                assertThat(storeErrors).as("store errors").isEmpty();
                assertThat(store.health()).isEqualTo(dev.ratelimit.StoreHealth.UP);
                assertThat(limiter.tryAcquire("cancelled").remaining()).as("charged once").isEqualTo(LIMIT - 2);
            } finally {
                virtualThreads.shutdownNow();
            }
        }
    }

    private static RedisStore store(RedisServer redis, boolean pipelining) {
        // A read timeout well above the pause, so that held calls wait rather than fail.
        return RedisStore.builder().url(redis.url()).pipelining(pipelining)
                .readTimeout(Duration.ofSeconds(10)).build();
    }

    /** {@link #CALLERS} concurrent decisions of one client while Redis holds every command for 2 s. */
    private static List<Decision> crowd(RedisServer redis, RateLimiter limiter) throws Exception {
        assertThat(limiter.tryAcquire("warm-up").source()).isEqualTo(Source.STORE);
        redis.clientPause(2_000);
        ExecutorService threads = Executors.newFixedThreadPool(CALLERS);
        try {
            List<Future<Decision>> futures = new ArrayList<>();
            for (int i = 0; i < CALLERS; i++) {
                futures.add(threads.submit(() -> limiter.tryAcquire("crowd")));
            }
            List<Decision> decisions = new ArrayList<>();
            for (Future<Decision> f : futures) {
                decisions.add(f.get());
            }
            return decisions;
        } finally {
            threads.shutdownNow();
        }
    }

    /** The store's connections to Redis ({@code CLIENT LIST}, by the client name it sets). */
    private static int connections(RedisServer redis) {
        String clients = String.valueOf(redis.call("CLIENT", "LIST"));
        return (int) clients.lines().filter(line -> line.contains(" name=rate-limit ")).count();
    }
}
