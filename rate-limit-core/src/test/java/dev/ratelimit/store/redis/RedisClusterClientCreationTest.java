package dev.ratelimit.store.redis;

import dev.ratelimit.Decision;
import dev.ratelimit.FailureMode;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import dev.ratelimit.StoreHealth;
import dev.ratelimit.Verdict;
import dev.ratelimit.testing.RedisCluster;
import dev.ratelimit.testing.RedisServer;
import dev.ratelimit.testing.TcpProxy;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import redis.clients.jedis.exceptions.JedisException;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Cluster store creates its client on first use, which must reach a seed node: a creation that
 * failed is tried again by later decisions, and a store closed while its client is being created
 * stays closed. The one seed is a proxy the test controls in front of a real master: it drops
 * connections, holds them, or passes them through.
 */
class RedisClusterClientCreationTest {
    private static final Limit LIMIT = Limit.of("creation", Policy.fixedWindow(100, Duration.ofDays(1)));
    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start(3, 0);
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @Test
    void aClusterClientThatCouldNotBeCreatedIsCreatedByALaterDecisionOnceASeedAnswers() {
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        RateLimitListener listener = new RateLimitListener() {
            @Override
            public void onStoreError(Throwable error) {
                errors.add(error);
            }
        };
        try (SeedProxy seed = new SeedProxy(cluster.currentMasters().get(0).port(), SeedProxy.Mode.DROP);
             RedisStore store = store(seed, listener)) {
            RateLimiter limiter = store.limiter(LIMIT);
            assertThat(limiter.tryAcquire("client").source()).as("no seed answers").isEqualTo(Source.FAIL_CLOSED);
            assertThat(limiter.tryAcquire("client").source()).as("still none").isEqualTo(Source.FAIL_CLOSED);
            // The listener hears Jedis' own exception, not the wrapper of the attempt that callers share.
            assertThat(errors).hasSize(2).allSatisfy(e -> assertThat(e).isInstanceOf(JedisException.class));

            seed.relay();
            Decision d = limiter.tryAcquire("client");
            assertThat(d.source()).as("the seed answers").isEqualTo(Source.STORE);
            assertThat(d.remaining()).isEqualTo(99);
        }
    }

    @Test
    void aStoreClosedWhileItsClusterClientIsBeingCreatedAnswersByItsFailureMode() throws Exception {
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try (SeedProxy seed = new SeedProxy(cluster.currentMasters().get(0).port(), SeedProxy.Mode.HOLD)) {
            RedisStore store = store(seed);
            RateLimiter limiter = store.limiter(LIMIT);
            Future<Decision> first = caller.submit(() -> limiter.tryAcquire("first"));
            assertThat(seed.held.await(10, TimeUnit.SECONDS)).as("the creation reached the seed").isTrue();

            store.close();
            seed.relay(); // the creation completes, after the close
            Decision d = first.get(10, TimeUnit.SECONDS);
            assertThat(d.source()).isEqualTo(Source.FAIL_CLOSED);
            assertThat(d.verdict()).isEqualTo(Verdict.STORE_UNAVAILABLE);
            assertThat(limiter.tryAcquire("later").source()).isEqualTo(Source.FAIL_CLOSED);
            Awaitility.await("connections of the closed store").atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50))
                    .untilAsserted(() -> assertThat(storeConnections()).isZero());
        } finally {
            caller.shutdownNow();
        }
    }

    @Test
    @Tag("virtual-threads")
    @EnabledForJreRange(min = JRE.JAVA_21, disabledReason = "virtual threads need Java 21+: run with -DvirtualThreadsJvm=<a Java 21+ java> (as .ci/run does)")
    void aCreationCancelledByItsThreadsInterruptIsCreatedAgainForTheCallersWaitingForIt() throws Exception {
        // On a virtual thread, the interrupt closes the creator's socket to the seed: the creator was
        // cancelled, Redis did not fail, and the callers waiting for that creation must not share it.
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        RateLimitListener listener = new RateLimitListener() {
            @Override
            public void onStoreError(Throwable error) {
                errors.add(error);
            }
        };
        ExecutorService virtualThreads = (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        ExecutorService platformThreads = Executors.newSingleThreadExecutor();
        try (SeedProxy seed = new SeedProxy(cluster.currentMasters().get(0).port(), SeedProxy.Mode.HOLD);
             RedisStore store = store(seed, listener)) {
            RateLimiter limiter = store.limiter(LIMIT);
            List<Thread> threads = new CopyOnWriteArrayList<>();
            Future<Decision> creator = virtualThreads.submit(() -> {
                threads.add(Thread.currentThread());
                return limiter.tryAcquire("creator");
            });
            assertThat(seed.held.await(10, TimeUnit.SECONDS)).as("the creation reached the seed").isTrue();
            Future<Decision> waiter = platformThreads.submit(() -> {
                threads.add(Thread.currentThread());
                return limiter.tryAcquire("waiter");
            });
            Awaitility.await().atMost(Duration.ofSeconds(10))
                    .until(() -> threads.size() == 2 && threads.get(1).getState() == Thread.State.WAITING);

            threads.get(0).interrupt();
            assertThat(creator.get(10, TimeUnit.SECONDS).source()).as("cancelled: the failure mode's answer").isEqualTo(Source.FAIL_CLOSED);
            seed.relay();

            assertThat(waiter.get(10, TimeUnit.SECONDS).source()).as("the waiter's own creation").isEqualTo(Source.STORE);
            assertThat(errors).as("store errors").isEmpty();
            assertThat(store.health()).isEqualTo(StoreHealth.UP);
        } finally {
            virtualThreads.shutdownNow();
            platformThreads.shutdownNow();
        }
    }

    private static RedisStore store(SeedProxy seed) {
        return store(seed, RateLimitListener.NONE);
    }

    private static RedisStore store(SeedProxy seed, RateLimitListener listener) {
        return RedisStore.builder().url("redis-cluster://127.0.0.1:" + seed.port()).failureMode(FailureMode.FAIL_CLOSED).listener(listener)
                .connectTimeout(Duration.ofSeconds(2)).readTimeout(Duration.ofSeconds(10))
                .circuitBreaker(100, Duration.ofMinutes(10)).build();
    }

    private static long storeConnections() {
        long n = 0;
        for (RedisServer node : cluster.nodes()) {
            for (String line : ((String) node.call("CLIENT", "LIST")).split("\n")) {
                if (line.contains(" name=rate-limit ")) {
                    n++;
                }
            }
        }
        return n;
    }

    /** A seed node on a port of its own: drops each connection, holds it until {@link #relay()}, or passes it to a real node. */
    private static final class SeedProxy implements AutoCloseable {
        enum Mode { DROP, HOLD, RELAY }

        final CountDownLatch held = new CountDownLatch(1);
        private final CountDownLatch released = new CountDownLatch(1);
        private final TcpProxy proxy;
        private volatile Mode mode;

        SeedProxy(int target, Mode mode) {
            this.mode = mode;
            this.proxy = new TcpProxy(target, this::admit);
        }

        int port() {
            return proxy.port();
        }

        /** From now on, connections (and the ones held) pass through to the real node. */
        void relay() {
            mode = Mode.RELAY;
            released.countDown();
        }

        private boolean admit() throws InterruptedException {
            Mode m = mode;
            if (m == Mode.HOLD) {
                held.countDown();
                released.await();
            }
            return m != Mode.DROP;
        }

        @Override
        public void close() {
            proxy.close();
        }
    }
}
