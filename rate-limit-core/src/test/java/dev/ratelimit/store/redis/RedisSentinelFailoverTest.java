package dev.ratelimit.store.redis;

import dev.ratelimit.Decision;
import dev.ratelimit.FailureMode;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import dev.ratelimit.testing.RedisServer;
import dev.ratelimit.testing.Resp;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A master, its replica and a Sentinel watching them: when the master dies, Sentinel promotes the
 * replica and the store, built from a {@code redis-sentinel://} URL as a user builds it (pipelining
 * on), decides on the promoted node from the replicated state; while there is no master it answers
 * by its failure mode, never with an exception.
 */
class RedisSentinelFailoverTest {
    private static final String MASTER_NAME = "ratelimit";
    private static final Limit LIMIT = Limit.of("sentinel-failover", Policy.fixedWindow(100, Duration.ofDays(400)));

    @Test
    void decisionsGoOnFromTheReplicatedStateOnceSentinelPromotesTheReplica() {
        try (RedisServer master = RedisServer.start();
             RedisServer replica = RedisServer.start(List.of("--replicaof", "127.0.0.1", Integer.toString(master.port())));
             RedisServer sentinel = RedisServer.startSentinel(master, MASTER_NAME);
             RedisStore store = RedisStore.builder().url("redis-sentinel://127.0.0.1:" + sentinel.port() + "/" + MASTER_NAME)
                     .failureMode(FailureMode.FAIL_CLOSED).readTimeout(Duration.ofSeconds(1)).build()) {
            awaitPromotable(replica, sentinel);
            RateLimiter limiter = store.limiter(LIMIT);
            assertThat(limiter.tryAcquire("survivor", 10).remaining()).isEqualTo(90);
            assertThat(master.awaitReplicas(1, Duration.ofSeconds(10))).as("replicas that acknowledged the write").isEqualTo(1L);

            master.kill();
            Decision during = limiter.tryAcquire("survivor", 10);
            assertThat(during.source()).as("no master: the failure mode answers").isEqualTo(Source.FAIL_CLOSED);

            Awaitility.await("Sentinel promotes the replica").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                    .until(() -> sentinel.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME).toString()
                            .contains(Integer.toString(replica.port())));
            // Jedis hears of the new master from Sentinel (a +switch-master message) and moves its pool there.
            Decision after = Awaitility.await("decisions on the promoted replica").atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> limiter.tryAcquire("survivor", 10), d -> d.source() == Source.STORE);
            assertThat(after.remaining()).as("the state replicated before the master died, less this request").isEqualTo(80);
            assertThat(replica.call("ROLE").toString()).startsWith("[master");
        }
    }

    @ParameterizedTest(name = "pipelining {0}")
    @ValueSource(booleans = {false, true})
    void aCallerWaitingForAPooledConnectionAtAFailoverGetsTheNewMastersDecisionNotInterrupted(boolean pipelining) throws Exception {
        // At a failover Jedis closes the old master's pool, and commons-pool2 interrupts the threads
        // waiting to borrow from it: nobody cancelled them. Before, such a caller came back interrupted
        // (a request thread whose next blocking write may then fail), with pipelining off also with
        // the failure mode's decision.
        try (RedisServer master = RedisServer.start();
             RedisServer replica = RedisServer.start(List.of("--replicaof", "127.0.0.1", Integer.toString(master.port())));
             RedisServer sentinel = RedisServer.startSentinel(master, MASTER_NAME);
             RedisStore store = RedisStore.builder().url("redis-sentinel://127.0.0.1:" + sentinel.port() + "/" + MASTER_NAME)
                     .pipelining(pipelining).poolSize(1).readTimeout(Duration.ofSeconds(30))
                     .failureMode(FailureMode.FAIL_CLOSED).build()) {
            awaitPromotable(replica, sentinel);
            RateLimiter limiter = store.limiter(LIMIT);
            assertThat(limiter.tryAcquire("warm-up").source()).isEqualTo(Source.STORE);
            ExecutorService threads = Executors.newCachedThreadPool();
            try {
                master.pause();
                List<Thread> callers = new CopyOnWriteArrayList<>();
                threads.submit(() -> decide(limiter, "holder", callers)); // holds the only connection, on the frozen master
                Awaitility.await().atMost(Duration.ofSeconds(10))
                        .until(() -> callers.size() == 1 && RedisCancelledCallTest.in(callers.get(0), "RedisInputStream"));
                Future<String> waiter = threads.submit(() -> decide(limiter, "waiter", callers));
                Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> callers.size() == 2
                        && RedisCancelledCallTest.in(callers.get(1), "borrowObject") && callers.get(1).getState() == Thread.State.TIMED_WAITING);

                sentinel.call("SENTINEL", "FAILOVER", MASTER_NAME);

                assertThat(waiter.get(30, TimeUnit.SECONDS)).isEqualTo("STORE");
                assertThat(replica.call("ROLE").toString()).startsWith("[master");
            } finally {
                master.kill();
                threads.shutdownNow();
            }
        }
    }

    /** A decision's source, and " interrupted" if the calling thread came back interrupted. */
    private static String decide(RateLimiter limiter, String client, List<Thread> callers) {
        callers.add(Thread.currentThread());
        Decision decision = limiter.tryAcquire(client);
        return decision.source() + (Thread.currentThread().isInterrupted() ? " interrupted" : "");
    }

    /** Waits until {@code replica} is in sync and {@code sentinel} knows it: Sentinel can only promote a replica it knows. */
    private static void awaitPromotable(RedisServer replica, RedisServer sentinel) {
        Awaitility.await("the replica in sync").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
                .until(() -> "up".equals(Resp.info(replica.port(), "replication", "master_link_status")));
        // Sentinel learns of the replica from the master's INFO.
        Awaitility.await("Sentinel sees the replica").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                .until(() -> sentinel.call("SENTINEL", "REPLICAS", MASTER_NAME).toString()
                        .contains(Integer.toString(replica.port())));
    }
}
