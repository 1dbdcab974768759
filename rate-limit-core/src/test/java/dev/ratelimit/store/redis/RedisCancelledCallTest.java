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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
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
        onAPausedRedis(false, (redis, store, limiter, threads, storeErrors) -> {
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
        });
    }

    @Test
    void aBatchSenderInterruptedWhileItWaitsForAPooledConnectionFailsNoneOfTheCallsItCarries() throws Exception {
        // With pipelining, a caller that finds the senders busy queues its call, and the next sender
        // carries it. That sender's wait for a pooled connection can be interrupted (its own task
        // cancelled). Before, its interrupt failed every call it carried: each went to the failure mode
        // (here FAIL_CLOSED) and each caller's thread was left interrupted by another thread's cancellation.
        onAPausedRedis(true, (redis, store, limiter, threads, storeErrors) -> {
            List<Thread> callers = new CopyOnWriteArrayList<>();
            List<Future<Object[]>> outcomes = new ArrayList<>();
            // The first caller's call holds the only connection; the next three send on their own
            // and wait for it: every sender is busy.
            for (int i = 0; i < CallBatcher.MAX_SENDERS; i++) {
                outcomes.add(decide(threads, limiter, "busy-" + i, callers));
                int started = i + 1;
                Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> callers.size() == started
                        && (in(callers.get(0), "RedisInputStream") && callers.stream().skip(1).allMatch(t -> in(t, "borrowObject"))));
            }
            // Two more queue behind them; when one sender gives up, the oldest of these carries both.
            outcomes.add(decide(threads, limiter, "carrier", callers));
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> callers.size() == 5 && in(callers.get(4), "CallBatcher"));
            outcomes.add(decide(threads, limiter, "carried", callers));
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> callers.size() == 6 && in(callers.get(5), "CallBatcher")
                    && callers.get(5).getState() == Thread.State.WAITING);
            callers.get(1).interrupt();
            // A sender now carries the two queued calls (the interrupted one again, or the oldest
            // queued caller) and waits for the connection: it is cancelled too.
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> carrier(callers) >= 0);
            int carrier = carrier(callers);
            callers.get(carrier).interrupt();

            redis.resume();
            // Each caller's decision source and interrupt status. A batched caller's interrupt is no
            // cancellation: its call still goes to Redis, and its thread comes back interrupted.
            List<String> seen = new ArrayList<>();
            for (Future<Object[]> f : outcomes) {
                Object[] outcome = f.get(10, TimeUnit.SECONDS);
                seen.add(outcome[0] + (Boolean.TRUE.equals(outcome[1]) ? " interrupted" : ""));
            }
            List<String> expected = new ArrayList<>(Collections.nCopies(6, "STORE"));
            expected.set(1, "STORE interrupted");
            expected.set(carrier, "STORE interrupted");
            assertThat(seen).containsExactlyElementsOf(expected);
            assertNoRedisFailureWasSeen(store, limiter, storeErrors);
        });
    }

    @ParameterizedTest(name = "pipelining {0}")
    @ValueSource(booleans = {false, true})
    void aCallerWaitingForAPooledConnectionWhenTheStoreClosesIsNotLeftInterrupted(boolean pipelining) throws Exception {
        // Closing the store closes its pool, and commons-pool2 interrupts the threads waiting to borrow
        // from it: nobody cancelled them. (From a review: a batch sender restored that interrupt.)
        onAPausedRedis(pipelining, (redis, store, limiter, threads, storeErrors) -> {
            List<Thread> callers = new CopyOnWriteArrayList<>();
            Future<Object[]> holder = decide(threads, limiter, "holder", callers);
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> callers.size() == 1 && in(callers.get(0), "RedisInputStream"));
            Future<Object[]> waiter = decide(threads, limiter, "waiter", callers);
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> callers.size() == 2 && in(callers.get(1), "borrowObject")
                    && callers.get(1).getState() == Thread.State.TIMED_WAITING);

            store.close();

            Object[] outcome = waiter.get(10, TimeUnit.SECONDS);
            assertThat(outcome[0] + (Boolean.TRUE.equals(outcome[1]) ? " interrupted" : "")).isEqualTo("FAIL_CLOSED");
            redis.resume();
            holder.get(10, TimeUnit.SECONDS);
        });
    }

    /** What a test does on a Redis that stopped answering, through a store of one pooled connection. */
    private interface Scenario {
        void run(RedisServer redis, RedisStore store, RateLimiter limiter, ExecutorService threads, List<String> storeErrors)
                throws Exception;
    }

    /**
     * Runs {@code scenario} with a store of one pooled connection (a failure mode of FAIL_CLOSED, a
     * breaker that opens at the first failure, for an hour) that decided once, on a Redis then paused.
     */
    private static void onAPausedRedis(boolean pipelining, Scenario scenario) throws Exception {
        List<String> storeErrors = new CopyOnWriteArrayList<>();
        try (RedisServer redis = RedisServer.start();
             RedisStore store = store(redis, storeErrors, 1, pipelining)) {
            RateLimiter limiter = store.limiter(LIMIT);
            assertThat(limiter.tryAcquire("warm-up").source()).isEqualTo(Source.STORE);
            ExecutorService threads = Executors.newCachedThreadPool();
            try {
                redis.pause();
                scenario.run(redis, store, limiter, threads, storeErrors);
            } finally {
                threads.shutdownNow();
            }
        }
    }

    /**
     * Which of the interrupted sender (1) and the oldest queued caller (4) now waits for a pooled
     * connection, its interrupt status clear (so, for caller 1, a wait begun after its interrupt); -1 if neither yet.
     */
    private static int carrier(List<Thread> callers) {
        for (int i : new int[] {1, 4}) {
            Thread t = callers.get(i);
            if (in(t, "borrowObject") && !t.isInterrupted()
                    && (t.getState() == Thread.State.WAITING || t.getState() == Thread.State.TIMED_WAITING)) {
                return i;
            }
        }
        return -1;
    }

    /** A decision on {@code key} on a thread of {@code threads}: its source and its thread's interrupt status after it. */
    private static Future<Object[]> decide(ExecutorService threads, RateLimiter limiter, String key, List<Thread> callers) {
        return threads.submit(() -> {
            callers.add(Thread.currentThread());
            Source source = limiter.tryAcquire(key).source();
            return new Object[] {source, Thread.currentThread().isInterrupted()};
        });
    }

    private static void assertNoRedisFailureWasSeen(RedisStore store, RateLimiter limiter, List<String> storeErrors) {
        assertThat(storeErrors).as("store errors").isEmpty();
        assertThat(store.health()).isEqualTo(StoreHealth.UP);
        // A breaker that opens at the first failure, for an hour: still closed.
        assertThat(limiter.tryAcquire("after").source()).isEqualTo(Source.STORE);
    }

    private static RedisStore store(RedisServer redis, List<String> storeErrors, int poolSize) {
        return store(redis, storeErrors, poolSize, false);
    }

    private static RedisStore store(RedisServer redis, List<String> storeErrors, int poolSize, boolean pipelining) {
        return RedisStore.builder().url(redis.url()).pipelining(pipelining).poolSize(poolSize)
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
    static boolean in(Thread thread, String name) {
        return Arrays.stream(thread.getStackTrace()).anyMatch(f -> f.getClassName().contains(name) || f.getMethodName().contains(name));
    }
}
