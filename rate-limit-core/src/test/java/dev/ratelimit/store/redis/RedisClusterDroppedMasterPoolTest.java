package dev.ratelimit.store.redis;

import dev.ratelimit.FailureMode;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import dev.ratelimit.testing.RedisCluster;
import dev.ratelimit.testing.RedisServer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
 * A slot map renewal that drops a master (failed, its replica promoted) destroys that master's
 * connection pool, and commons-pool2 interrupts the threads waiting to borrow from it: nobody
 * cancelled them. Unbatched, Jedis' cluster executor takes that as a connection failure and sends the
 * call again, by the new slot map, to the promoted replica. A Cluster batch sender waiting for the
 * dropped master's pool took the interrupt as its own: its caller came back interrupted, and its
 * call went back to the dead master's queue, to wait out a read timeout there again (from review of 3da9c48).
 */
class RedisClusterDroppedMasterPoolTest {
    private static final Limit LIMIT = Limit.of("dropped-pool", Policy.fixedWindow(100, Duration.ofDays(400)));
    /** Long enough for the promotion and the slot move to happen while the second caller waits for a connection. */
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(12);

    private RedisCluster cluster;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeEach
    void startCluster() {
        cluster = RedisCluster.start(3, 1);
    }

    @AfterEach
    void stopCluster() {
        threads.shutdownNow();
        cluster.close();
    }

    @ParameterizedTest(name = "pipelining {0}")
    @ValueSource(booleans = {false, true})
    void aCallerWaitingForTheConnectionOfAMasterTheSlotMapDropsIsDecidedByItsSuccessorNotLeftInterrupted(boolean pipelining)
            throws Exception {
        // One pooled connection per node: the frozen master's is held by the first caller.
        try (RedisStore store = RedisStore.builder().url(cluster.url()).pipelining(pipelining).poolSize(1)
                .readTimeout(READ_TIMEOUT).failureMode(FailureMode.FAIL_CLOSED)
                .circuitBreaker(1_000, Duration.ofHours(1)).build()) {
            RateLimiter limiter = store.limiter(LIMIT);
            List<RedisServer> masters = cluster.currentMasters();
            RedisServer frozen = masters.get(0);
            RedisServer moving = masters.get(1);
            RedisServer target = masters.get(2);
            String holder = clientOn(frozen, "holder");
            String waiter = clientOn(frozen, "waiter");
            String mover = clientOn(moving, "mover");
            for (String client : List.of(holder, waiter, mover)) {
                assertThat(limiter.tryAcquire(client).source()).isEqualTo(Source.STORE);
            }
            assertThat(frozen.awaitReplicas(1, Duration.ofSeconds(10))).isEqualTo(1L);

            frozen.pause();
            List<Thread> callers = new CopyOnWriteArrayList<>();
            Future<Object[]> held = decide(limiter, holder, callers);
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> callers.size() == 1 && in(callers.get(0), "RedisInputStream"));
            Future<Object[]> waiting = decide(limiter, waiter, callers);
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> callers.size() == 2 && in(callers.get(1), "borrowObject")
                    && callers.get(1).getState() == Thread.State.TIMED_WAITING);

            // The frozen master's replica takes over; then a MOVED has the store read the slot map
            // again, which no longer names the frozen master: its pool is destroyed.
            Awaitility.await("promotion").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                    .until(() -> cluster.currentMasters().size() == 3);
            cluster.awaitHealthy();
            cluster.migrateSlot(cluster.slot(key(mover)), target);
            assertThat(limiter.tryAcquire(mover).source()).isEqualTo(Source.STORE);

            Object[] outcome = waiting.get(30, TimeUnit.SECONDS);
            assertThat(outcome[0] + (Boolean.TRUE.equals(outcome[1]) ? " interrupted" : ""))
                    .as("the caller that waited for the dropped master's pool").isEqualTo("STORE");
            frozen.resume(); // the held call's connection answers (or breaks), rather than the test waiting out its timeout
            held.get(30, TimeUnit.SECONDS);
        } finally {
            cluster.nodes().forEach(n -> {
                if (n.isRunning()) {
                    n.resume();
                }
            });
        }
    }

    /** A decision of {@code client} on a thread of its own: its source and its thread's interrupt status after it. */
    private Future<Object[]> decide(RateLimiter limiter, String client, List<Thread> callers) {
        return threads.submit(() -> {
            callers.add(Thread.currentThread());
            Source source = limiter.tryAcquire(client).source();
            return new Object[] {source, Thread.currentThread().isInterrupted()};
        });
    }

    private String clientOn(RedisServer master, String prefix) {
        for (int i = 0; ; i++) {
            String client = prefix + "-" + i;
            if (cluster.masterOf(cluster.slot(key(client))) == master) {
                return client;
            }
        }
    }

    private static String key(String client) {
        return ScriptLimit.key("rl:", LIMIT, ClientHash.sha256().of(client), 0);
    }
}
