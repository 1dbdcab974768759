package dev.ratelimit.store.redis;

import dev.ratelimit.Decision;
import dev.ratelimit.FailureMode;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import dev.ratelimit.StoreHealth;
import dev.ratelimit.testing.RedisServer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A decision whose thread is interrupted during its own call to Redis (a cancelled task) was
 * cancelled; Redis did not fail. Unbatched calls (pipelining off, and every call on Cluster) run on
 * the caller's thread: there a virtual thread's interrupt closes its socket, and any thread's
 * interrupts its wait for a pooled connection. Before, either counted as Redis failing (a warning,
 * health DEGRADED, the breaker a step nearer opening: here, with a threshold of one, open for an
 * hour), and the waiting thread's interrupt status was lost.
 */
class RedisCancelledCallTest {
    private static final Limit LIMIT = Limit.of("cancelled", Policy.tokenBucket(100, 100, Duration.ofDays(400)));

    @Test
    @Tag("virtual-threads")
    @EnabledForJreRange(min = JRE.JAVA_21, disabledReason = "virtual threads need Java 21+: run with -DvirtualThreadsJvm=<a Java 21+ java> (as .ci/run does)")
    void aVirtualThreadInterruptedInItsOwnCallIsNoRedisFailure() throws Exception {
        List<String> storeErrors = new CopyOnWriteArrayList<>();
        try (RedisServer redis = RedisServer.start();
             RedisStore store = store(redis, storeErrors, 16)) {
            RateLimiter limiter = store.limiter(LIMIT);
            assertThat(limiter.tryAcquire("warm-up").source()).isEqualTo(Source.STORE);
            ExecutorService virtualThreads = (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
            try {
                redis.pause();
                List<Thread> caller = new CopyOnWriteArrayList<>();
                Future<Boolean> interruptKept = virtualThreads.submit(() -> {
                    caller.add(Thread.currentThread());
                    limiter.tryAcquire("a");
                    return Thread.currentThread().isInterrupted();
                });
                Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> caller.size() == 1 && in(caller.get(0), "RedisInputStream"));
                caller.get(0).interrupt();
                assertThat(interruptKept.get(10, TimeUnit.SECONDS)).as("interrupt status kept").isTrue();
                redis.resume();
                assertNoRedisFailureWasSeen(store, limiter, storeErrors);
            } finally {
                virtualThreads.shutdownNow();
            }
        }
    }

    @Test
    void aThreadInterruptedWhileItWaitsForAPooledConnectionIsNoRedisFailure() throws Exception {
        List<String> storeErrors = new CopyOnWriteArrayList<>();
        try (RedisServer redis = RedisServer.start();
             RedisStore store = store(redis, storeErrors, 1)) {
            RateLimiter limiter = store.limiter(LIMIT);
            assertThat(limiter.tryAcquire("warm-up").source()).isEqualTo(Source.STORE);
            ExecutorService threads = Executors.newFixedThreadPool(2);
            try {
                redis.pause();
                List<Thread> holder = new CopyOnWriteArrayList<>();
                List<Thread> waiter = new CopyOnWriteArrayList<>();
                Future<Decision> held = threads.submit(() -> {
                    holder.add(Thread.currentThread());
                    return limiter.tryAcquire("a");
                });
                Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> holder.size() == 1 && in(holder.get(0), "RedisInputStream"));
                Future<Boolean> interruptKept = threads.submit(() -> {
                    waiter.add(Thread.currentThread());
                    limiter.tryAcquire("b");
                    return Thread.currentThread().isInterrupted();
                });
                Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> waiter.size() == 1 && in(waiter.get(0), "borrowObject"));
                waiter.get(0).interrupt();
                assertThat(interruptKept.get(10, TimeUnit.SECONDS)).as("interrupt status kept").isTrue();
                redis.resume();
                assertThat(held.get(10, TimeUnit.SECONDS).source()).isEqualTo(Source.STORE);
                assertNoRedisFailureWasSeen(store, limiter, storeErrors);
            } finally {
                threads.shutdownNow();
            }
        }
    }

    private static void assertNoRedisFailureWasSeen(RedisStore store, RateLimiter limiter, List<String> storeErrors) {
        assertThat(storeErrors).as("store errors").isEmpty();
        assertThat(store.health()).isEqualTo(StoreHealth.UP);
        // A breaker that opens at the first failure, for an hour: still closed.
        assertThat(limiter.tryAcquire("after").source()).isEqualTo(Source.STORE);
    }

    private static RedisStore store(RedisServer redis, List<String> storeErrors, int poolSize) {
        return RedisStore.builder().url(redis.url()).pipelining(false).poolSize(poolSize)
                .readTimeout(Duration.ofSeconds(10))
                .circuitBreaker(1, Duration.ofHours(1))
                .failureMode(FailureMode.FAIL_CLOSED)
                .listener(new RateLimitListener() {
                    @Override
                    public void onStoreError(Throwable error) {
                        storeErrors.add(String.valueOf(error));
                    }
                }).build();
    }

    /** Whether {@code thread} is running code of a class or method whose name contains {@code name}. */
    private static boolean in(Thread thread, String name) {
        return Arrays.stream(thread.getStackTrace()).anyMatch(f -> f.getClassName().contains(name) || f.getMethodName().contains(name));
    }
}
