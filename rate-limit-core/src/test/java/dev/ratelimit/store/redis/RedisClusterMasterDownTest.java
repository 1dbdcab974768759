package dev.ratelimit.store.redis;

import dev.ratelimit.Decision;
import dev.ratelimit.FailureMode;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import dev.ratelimit.StoreHealth;
import dev.ratelimit.testing.RedisCluster;
import dev.ratelimit.testing.RedisServer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A cluster of 3 masters without replicas (which keeps serving the slots it still has under
 * {@code cluster-require-full-coverage no}, as the harness sets it; under Redis' default every master
 * refuses every call once the dead one is marked failed: the last test). A master that
 * freezes past the read timeout is not sent the call again (it would charge the client once per
 * copy when it wakes). When one master dies, the clients it held are decided by the failure mode and, once that master's circuit
 * breaker opens, no longer wait on it, while the other masters' clients keep deciding on Redis. With
 * one breaker for the whole store, their successes would reset the count of failures and the dead
 * master would be called, and waited for, on every one of its clients' requests.
 */
class RedisClusterMasterDownTest {
    private static final Limit LIMIT = Limit.of("master-down", Policy.fixedWindow(100, Duration.ofDays(400)));
    private static final int THRESHOLD = 3;

    @Test
    void aDeadMasterOpensOnlyItsOwnBreakerWhileTheOtherMastersKeepDeciding() {
        AtomicInteger failedCalls = new AtomicInteger();
        RateLimitListener listener = new RateLimitListener() {
            @Override
            public void onStoreCall(long micros, boolean ok) {
                if (!ok) {
                    failedCalls.incrementAndGet();
                }
            }
        };
        try (RedisCluster cluster = RedisCluster.start(3, 0);
             RedisStore store = RedisStore.builder().url(cluster.url()).failureMode(FailureMode.FAIL_CLOSED)
                     .circuitBreaker(THRESHOLD, Duration.ofMinutes(10)).listener(listener).build()) {
            RedisServer dying = cluster.currentMasters().get(0);
            String stranded = clientOn(cluster, dying, true);
            String served = clientOn(cluster, dying, false);
            RateLimiter limiter = store.limiter(LIMIT);
            assertThat(limiter.tryAcquire(stranded).source()).isEqualTo(Source.STORE);
            assertThat(limiter.tryAcquire(served).source()).isEqualTo(Source.STORE);

            dying.kill();
            for (int i = 0; i < 10; i++) {
                assertThat(limiter.tryAcquire(stranded).source()).as("request %d of the dead master's client", i)
                        .isEqualTo(Source.FAIL_CLOSED);
                assertThat(limiter.tryAcquire(served).source()).as("request %d of a live master's client", i)
                        .isEqualTo(Source.STORE);
            }

            assertThat(failedCalls.get()).as("calls that failed: only until the dead master's breaker opened")
                    .isEqualTo(THRESHOLD);
            assertThat(store.health()).isEqualTo(StoreHealth.CIRCUIT_OPEN);
            assertThat(limiter.tryAcquire(served).remaining()).as("the live master kept every decision").isEqualTo(88);
        }
    }

    @Test
    void aCallThatTimedOutOnAFrozenMasterIsChargedOnceWhenTheMasterWakes() throws Exception {
        try (RedisCluster cluster = RedisCluster.start(3, 0);
             RedisStore store = RedisStore.builder().url(cluster.url()).failureMode(FailureMode.FAIL_CLOSED)
                     .readTimeout(Duration.ofMillis(400)).circuitBreaker(100, Duration.ofMinutes(10)).build()) {
            RedisServer frozen = cluster.currentMasters().get(0);
            String client = clientOn(cluster, frozen, true);
            RateLimiter limiter = store.limiter(LIMIT);
            assertThat(limiter.tryAcquire(client).remaining()).isEqualTo(99);
            // Three calls held at once: the master's pool now keeps three connections ready, as under
            // load, and a call sent again goes out at once on one of them.
            frozen.clientPause(100);
            HeldCalls.decidedTogetherByRedis(limiter, Collections.nCopies(3, client));

            frozen.pause();
            try {
                assertThat(limiter.tryAcquire(client).source()).as("timed out").isEqualTo(Source.FAIL_CLOSED);
            } finally {
                frozen.resume();
            }
            // Once the master answers again, it has run what waited in its sockets: the call that timed
            // out and any copy of it Jedis sent again.
            assertThat(frozen.call("PING")).isEqualTo("PONG");

            assertThat(limiter.tryAcquire(client).remaining()).as("charged for the call that timed out, once").isEqualTo(94);
        }
    }

    @Test
    void aMasterImportingASlotThatDiesOpensItsOwnBreakerNotTheSlotOwners() {
        try (RedisCluster cluster = RedisCluster.start(2, 0);
             RedisStore store = RedisStore.builder().url(cluster.url()).failureMode(FailureMode.FAIL_CLOSED)
                     .readTimeout(Duration.ofSeconds(1)).circuitBreaker(THRESHOLD, Duration.ofMinutes(10)).build()) {
            RedisServer owner = cluster.currentMasters().get(0);
            String mover = clientOn(cluster, owner, true);
            String stayer = stayerBeside(cluster, owner, mover);
            RateLimiter limiter = store.limiter(LIMIT);
            assertThat(limiter.tryAcquire(mover).source()).isEqualTo(Source.STORE);
            assertThat(limiter.tryAcquire(stayer).source()).isEqualTo(Source.STORE);

            // Scale-out: the mover's slot is half moved to a new master when that master dies.
            RedisServer importing = cluster.addMaster();
            RedisCluster.SlotMigration migration = cluster.startMigration(cluster.slot(keyOf(mover)), importing);
            migration.moveKeys();
            assertThat(limiter.tryAcquire(mover).remaining()).as("decided by the importing master (ASK)").isEqualTo(98);
            importing.kill();
            for (int i = 0; i < THRESHOLD + 2; i++) {
                assertThat(limiter.tryAcquire(mover).source()).as("request %d of the mover", i).isEqualTo(Source.FAIL_CLOSED);
            }

            // The slot's owner answered every one of those calls (ASK): its other clients decide on Redis.
            Decision stayed = limiter.tryAcquire(stayer);
            assertThat(stayed.source()).as("a client of the live owner, in another slot").isEqualTo(Source.STORE);
            assertThat(stayed.remaining()).isEqualTo(98);
            assertThat(store.health()).as("the dead master's breaker").isEqualTo(StoreHealth.CIRCUIT_OPEN);
        }
    }

    @Test
    void aProbeRedirectedToADeadImportingMasterLeavesTheOwnersBreakerFreeToProbeAgain() {
        ManualClock clock = new ManualClock(1_000_000_000_000L);
        try (RedisCluster cluster = RedisCluster.start(2, 0);
             RedisStore store = RedisStore.builder().url(cluster.url()).failureMode(FailureMode.FAIL_CLOSED).clock(clock)
                     .readTimeout(Duration.ofMillis(500)).circuitBreaker(1, Duration.ofSeconds(1)).build()) {
            RedisServer owner = cluster.currentMasters().get(0);
            String mover = clientOn(cluster, owner, true);
            String stayer = stayerBeside(cluster, owner, mover);
            RateLimiter limiter = store.limiter(LIMIT);
            assertThat(limiter.tryAcquire(mover).source()).isEqualTo(Source.STORE);
            // The owner stops answering once: its breaker (threshold 1) opens.
            owner.pause();
            try {
                assertThat(limiter.tryAcquire(stayer).source()).as("timed out").isEqualTo(Source.FAIL_CLOSED);
            } finally {
                owner.resume();
            }
            // The mover's slot is half moved to a new master when that master dies.
            RedisServer importing = cluster.addMaster();
            cluster.startMigration(cluster.slot(keyOf(mover)), importing).moveKeys();
            importing.kill();

            clock.advance(Duration.ofSeconds(2));
            assertThat(limiter.tryAcquire(mover).source()).as("the owner's probe, sent on to the dead master (ASK)")
                    .isEqualTo(Source.FAIL_CLOSED);
            Decision stayed = limiter.tryAcquire(stayer);
            assertThat(stayed.source()).as("the owner's next probe").isEqualTo(Source.STORE);
            assertThat(stayed.remaining()).as("the call that timed out ran when the owner woke").isEqualTo(98);
        }
    }

    @Test
    void underRedisDefaultFullCoverageADeadMasterStopsTheOtherMastersToo() {
        List<String> errors = new CopyOnWriteArrayList<>();
        RateLimitListener listener = new RateLimitListener() {
            @Override
            public void onStoreError(Throwable error) {
                errors.add(String.valueOf(error));
            }
        };
        try (RedisCluster cluster = RedisCluster.start(3, 0, port -> List.of("--cluster-require-full-coverage", "yes"));
             RedisStore store = RedisStore.builder().url(cluster.url()).failureMode(FailureMode.FAIL_CLOSED)
                     .circuitBreaker(THRESHOLD, Duration.ofMinutes(10)).listener(listener).build()) {
            RedisServer dying = cluster.currentMasters().get(0);
            RedisServer live = cluster.currentMasters().get(1);
            String served = clientOn(cluster, live, true);
            RateLimiter limiter = store.limiter(LIMIT);
            assertThat(limiter.tryAcquire(served).source()).isEqualTo(Source.STORE);

            dying.kill();
            // Once the cluster marks the dead master failed (cluster-node-timeout, 1 s here), it is down
            // as a whole: no replica takes the dead master's slots, so that lasts.
            Awaitility.await("the cluster to mark the dead master failed").atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> String.valueOf(live.call("CLUSTER", "INFO")).contains("cluster_state:fail"));
            assertThat(limiter.tryAcquire(served).source()).as("a live master's client").isEqualTo(Source.FAIL_CLOSED);
            assertThat(errors).last().asString().contains("CLUSTERDOWN");
        }
    }

    @Test
    void afterAMasterRestartsOneDecisionFailsOnItsDeadPooledConnectionsAndTheNextGoesOnAFreshOne() throws Exception {
        try (RedisCluster cluster = RedisCluster.start(3, 0);
             RedisStore store = RedisStore.builder().url(cluster.url()).failureMode(FailureMode.FAIL_CLOSED)
                     .readTimeout(Duration.ofSeconds(5)).circuitBreaker(100, Duration.ofMinutes(10)).build()) {
            RedisServer restarting = cluster.currentMasters().get(0);
            String client = clientOn(cluster, restarting, true);
            RateLimiter limiter = store.limiter(LIMIT);
            assertThat(limiter.tryAcquire(client).source()).isEqualTo(Source.STORE);
            // Eight calls held at once (a second, so that all are in flight on a loaded machine): the
            // master's pool now keeps several connections (up to the 4 batches in flight), as under load.
            restarting.clientPause(1_000);
            HeldCalls.decidedTogetherByRedis(limiter, Collections.nCopies(8, client));

            restarting.restart(); // empty: no persistence
            cluster.awaitHealthy();
            // Its batch, then Jedis' three attempts of the call sent again on its own, each take a pooled
            // connection the restart broke.
            assertThat(limiter.tryAcquire(client).source()).as("on the dead connections").isEqualTo(Source.FAIL_CLOSED);
            Decision next = limiter.tryAcquire(client);
            assertThat(next.source()).as("the dead connections dropped after the failure").isEqualTo(Source.STORE);
            assertThat(next.remaining()).isEqualTo(99);
        }
    }

    /** A client id whose keys live on {@code master} ({@code on}) or on another master ({@code !on}). */
    private static String clientOn(RedisCluster cluster, RedisServer master, boolean on) {
        for (int i = 0; ; i++) {
            String client = "client-" + i;
            if ((cluster.masterOf(cluster.slot(keyOf(client))) == master) == on) {
                return client;
            }
        }
    }

    private static String keyOf(String client) {
        return ScriptLimit.key("rl:", LIMIT, ClientHash.sha256().of(client), 0);
    }

    /** A client whose keys {@code owner} holds, in another slot than {@code mover}'s: it stays when that slot moves. */
    private static String stayerBeside(RedisCluster cluster, RedisServer owner, String mover) {
        for (int i = 0; ; i++) {
            int slot = cluster.slot(keyOf("stayer-" + i));
            if (slot != cluster.slot(keyOf(mover)) && cluster.masterOf(slot) == owner) {
                return "stayer-" + i;
            }
        }
    }
}
