package dev.ratelimit.store.redis;

import dev.ratelimit.Decision;
import dev.ratelimit.FailureMode;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import dev.ratelimit.StoreHealth;
import dev.ratelimit.testing.RedisCluster;
import dev.ratelimit.testing.RedisServer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static dev.ratelimit.store.redis.RedisCancelledCallTest.in;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Virtual threads batched on a Cluster master and interrupted while their batches wait for it (a
 * cancelled scope): their calls still go to Redis, each decided once, no connection breaks, nothing
 * counts as a Redis failure, and each thread comes back interrupted (review of 3da9c48: checked, holds).
 */
class RedisClusterVirtualThreadsTest {
    private static final int CALLERS = 12;
    private static final Limit LIMIT = Limit.of("cluster-virtual", Policy.fixedWindow(100, Duration.ofDays(400)));

    @Test
    @Tag("virtual-threads")
    @EnabledForJreRange(min = JRE.JAVA_21, disabledReason = "virtual threads need Java 21+: run with -DvirtualThreadsJvm=<a Java 21+ java>")
    void virtualThreadsInterruptedWhileTheirBatchWaitsOnAMasterAreDecidedOnceByRedisAndKeepTheirInterrupt() throws Exception {
        List<String> storeErrors = new CopyOnWriteArrayList<>();
        try (RedisCluster cluster = RedisCluster.start(3, 0);
             RedisStore store = RedisStore.builder().url(cluster.url()).readTimeout(Duration.ofSeconds(10))
                     .failureMode(FailureMode.FAIL_CLOSED).circuitBreaker(1, Duration.ofHours(1))
                     .listener(new RateLimitListener() {
                         @Override
                         public void onStoreError(Throwable error) {
                             storeErrors.add(String.valueOf(error));
                         }
                     }).build()) {
            RateLimiter limiter = store.limiter(LIMIT);
            RedisServer master = cluster.currentMasters().get(0);
            String client = clientOn(cluster, master);
            assertThat(limiter.tryAcquire(client).remaining()).isEqualTo(99);
            ExecutorService virtualThreads = (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
            try {
                master.clientPause(1_500);
                List<Thread> callers = new CopyOnWriteArrayList<>();
                List<Future<Object[]>> outcomes = new ArrayList<>();
                for (int i = 0; i < CALLERS; i++) {
                    outcomes.add(virtualThreads.submit(() -> {
                        callers.add(Thread.currentThread());
                        Decision d = limiter.tryAcquire(client);
                        return new Object[] {d.source(), d.remaining(), Thread.currentThread().isInterrupted()};
                    }));
                }
                Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> callers.size() == CALLERS
                        && callers.stream().allMatch(t -> in(t, "CallBatcher")));
                callers.forEach(Thread::interrupt);

                List<Long> remaining = new ArrayList<>();
                for (Future<Object[]> f : outcomes) {
                    Object[] outcome = f.get(20, TimeUnit.SECONDS);
                    assertThat(outcome[0]).isEqualTo(Source.STORE);
                    assertThat(outcome[2]).as("interrupt kept").isEqualTo(true);
                    remaining.add((Long) outcome[1]);
                }
                assertThat(remaining).as("each decided once").containsExactlyInAnyOrderElementsOf(
                        java.util.stream.LongStream.rangeClosed(99 - CALLERS, 98).boxed().toList());
            } finally {
                virtualThreads.shutdownNow();
            }
            assertThat(storeErrors).isEmpty();
            assertThat(store.health()).isEqualTo(StoreHealth.UP);
            assertThat(limiter.tryAcquire(client).remaining()).isEqualTo(99 - CALLERS - 1);
        }
    }

    private static String clientOn(RedisCluster cluster, RedisServer master) {
        for (int i = 0; ; i++) {
            String client = "client-" + i;
            if (cluster.masterOf(cluster.slot(ScriptLimit.key("rl:", LIMIT, ClientHash.sha256().of(client), 0))) == master) {
                return client;
            }
        }
    }
}
