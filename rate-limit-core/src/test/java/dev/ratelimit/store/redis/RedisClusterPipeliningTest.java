package dev.ratelimit.store.redis;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import dev.ratelimit.Verdict;
import dev.ratelimit.testing.RedisCluster;
import dev.ratelimit.testing.RedisServer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On a Redis Cluster, concurrent decisions share round trips per master, as they do on one server:
 * the callers of each master's clients go in batches to that master, a few connections each, every
 * decision exact; a frozen master holds only its own callers; a batch answered with MOVED has each
 * call sent on its own to the slot's new master, decided once. Masters hold commands with
 * {@code CLIENT PAUSE} so that the callers are sure to overlap.
 */
class RedisClusterPipeliningTest {
    private static final int CALLERS = 24;
    private static final int LIMIT = 20;
    private static final Limit CROWD = Limit.of("cluster-crowd", Policy.tokenBucket(LIMIT, LIMIT, Duration.ofDays(400)));
    private static RedisCluster cluster;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start(3, 0);
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @AfterEach
    void stopThreads() {
        cluster.currentMasters().forEach(m -> {
            if (m.isRunning()) {
                m.resume();
            }
        });
        threads.shutdownNow();
    }

    @Test
    void aCrowdOnEveryMasterSharesAFewConnectionsToEachAndIsAdmittedExactly() throws Exception {
        try (RedisStore store = store(true)) {
            Map<RedisServer, List<Decision>> decided = crowdOnEveryMaster(store.limiter(CROWD), "shared");
            decided.forEach((master, decisions) -> {
                assertThat(decisions).as("%s", master).allMatch(d -> d.source() == Source.STORE);
                assertThat(decisions).filteredOn(d -> d.verdict() == Verdict.ALLOWED).hasSize(LIMIT);
                assertThat(decisions).filteredOn(d -> d.verdict() == Verdict.REJECTED).hasSize(CALLERS - LIMIT);
                assertThat(connections(master)).as("connections to %s", master).isBetween(1, CallBatcher.MAX_SENDERS);
            });
        }
    }

    @Test
    void withoutPipeliningEachWaitingCallerHoldsItsOwnConnectionToItsMaster() throws Exception {
        try (RedisStore store = store(false)) {
            Map<RedisServer, List<Decision>> decided = crowdOnEveryMaster(store.limiter(CROWD), "alone");
            decided.forEach((master, decisions) -> {
                assertThat(decisions).filteredOn(d -> d.verdict() == Verdict.ALLOWED).hasSize(LIMIT);
                assertThat(connections(master)).as("connections to %s", master).isGreaterThan(CallBatcher.MAX_SENDERS);
            });
        }
    }

    @Test
    void aFrozenMastersBatchesHoldOnlyItsOwnCallersTheOtherMastersDecideMeanwhile() throws Exception {
        try (RedisStore store = store(true)) {
            RateLimiter limiter = store.limiter(CROWD);
            List<RedisServer> masters = cluster.currentMasters();
            RedisServer frozen = masters.get(0);
            RedisServer healthy = masters.get(1);
            // Clients of their own on the frozen master, more than its senders: were batches not per
            // master, every sender would be out to the frozen one and the healthy master's callers queued.
            List<String> frozenClients = clientsOn(frozen, "frozen", CallBatcher.MAX_SENDERS * 2);
            List<String> healthyClients = clientsOn(healthy, "healthy", CALLERS);
            for (String client : frozenClients) {
                assertThat(limiter.tryAcquire(client).source()).isEqualTo(Source.STORE);
            }
            frozen.pause();
            List<Thread> frozenCallers = new CopyOnWriteArrayList<>();
            List<Future<Decision>> waiting = new ArrayList<>();
            for (String client : frozenClients) {
                waiting.add(threads.submit(() -> {
                    frozenCallers.add(Thread.currentThread());
                    return limiter.tryAcquire(client);
                }));
            }
            // Every one of them in the batcher: sending to the frozen master, or queued for it.
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> frozenCallers.size() == frozenClients.size()
                    && frozenCallers.stream().allMatch(t -> Arrays.stream(t.getStackTrace())
                    .anyMatch(f -> f.getClassName().equals(CallBatcher.class.getName()))));
            List<Future<Decision>> others = new ArrayList<>();
            for (String client : healthyClients) {
                others.add(threads.submit(() -> limiter.tryAcquire(client)));
            }
            // Decided while the frozen master still holds its callers (their read timeout is 10 s).
            Awaitility.await().atMost(Duration.ofSeconds(8)).until(() -> others.stream().allMatch(Future::isDone));
            assertThat(waiting).as("the frozen master's callers still wait").noneMatch(Future::isDone);
            for (Future<Decision> f : others) {
                assertThat(f.get().source()).isEqualTo(Source.STORE);
                assertThat(f.get().remaining()).isEqualTo(LIMIT - 1);
            }
            frozen.resume();
            for (Future<Decision> f : waiting) {
                Decision d = f.get();
                assertThat(d.source()).as("decided by the master once it woke").isEqualTo(Source.STORE);
                assertThat(d.remaining()).isEqualTo(LIMIT - 2);
            }
        }
    }

    @Test
    void aCrowdAnsweredWithMovedAfterItsSlotMigratedIsDecidedOnceEachOnTheNewMaster() throws Exception {
        try (RedisStore store = store(true)) {
            RateLimiter limiter = store.limiter(CROWD);
            String client = "mover";
            assertThat(limiter.tryAcquire(client).remaining()).isEqualTo(LIMIT - 1);
            int slot = cluster.slot(key(client));
            RedisServer owner = cluster.masterOf(slot);
            RedisServer target = cluster.currentMasters().stream().filter(m -> m != owner).findFirst().orElseThrow();
            cluster.migrateSlot(slot, target); // the store's slot map still names the old owner
            owner.clientPause(2_000);
            List<Future<Decision>> futures = new ArrayList<>();
            for (int i = 0; i < CALLERS; i++) {
                futures.add(threads.submit(() -> limiter.tryAcquire(client)));
            }
            List<Decision> decisions = new ArrayList<>();
            for (Future<Decision> f : futures) {
                decisions.add(f.get());
            }
            assertThat(decisions).allMatch(d -> d.source() == Source.STORE);
            assertThat(decisions).filteredOn(d -> d.verdict() == Verdict.ALLOWED).hasSize(LIMIT - 1);
            assertThat(target.call("EXISTS", key(client))).isEqualTo(1L);
            assertThat(limiter.tryAcquire(client).verdict()).as("charged once per decision").isEqualTo(Verdict.REJECTED);
        }
    }

    private static RedisStore store(boolean pipelining) {
        // A read timeout well above the pauses, so that held calls wait rather than fail.
        return RedisStore.builder().url(cluster.url()).pipelining(pipelining).readTimeout(Duration.ofSeconds(10)).build();
    }

    /** {@link #CALLERS} concurrent decisions of one client per master, while every master holds commands for 2 s. */
    private Map<RedisServer, List<Decision>> crowdOnEveryMaster(RateLimiter limiter, String prefix) throws Exception {
        Map<RedisServer, String> clients = new LinkedHashMap<>();
        for (RedisServer master : cluster.currentMasters()) {
            String client = clientsOn(master, prefix, 1).get(0);
            assertThat(limiter.tryAcquire(client + "-warm-up").source()).isEqualTo(Source.STORE);
            clients.put(master, client);
        }
        clients.keySet().forEach(m -> m.clientPause(2_000));
        Map<RedisServer, List<Future<Decision>>> futures = new LinkedHashMap<>();
        clients.forEach((master, client) -> {
            for (int i = 0; i < CALLERS; i++) {
                futures.computeIfAbsent(master, m -> new ArrayList<>()).add(threads.submit(() -> limiter.tryAcquire(client)));
            }
        });
        Map<RedisServer, List<Decision>> decided = new LinkedHashMap<>();
        for (Map.Entry<RedisServer, List<Future<Decision>>> e : futures.entrySet()) {
            for (Future<Decision> f : e.getValue()) {
                decided.computeIfAbsent(e.getKey(), m -> new ArrayList<>()).add(f.get());
            }
        }
        return decided;
    }

    /** {@code n} client names starting with {@code prefix} whose keys' slot {@code master} owns. */
    private static List<String> clientsOn(RedisServer master, String prefix, int n) {
        List<String> clients = new ArrayList<>();
        for (int i = 0; clients.size() < n; i++) {
            String client = prefix + "-" + i;
            if (cluster.masterOf(cluster.slot(key(client))) == master) {
                clients.add(client);
            }
        }
        return clients;
    }

    private static String key(String client) {
        return ScriptLimit.key("rl:", CROWD, ClientHash.sha256().of(client), 0);
    }

    /** The store's connections to {@code node} ({@code CLIENT LIST}, by the client name it sets). */
    private static int connections(RedisServer node) {
        String clients = String.valueOf(node.call("CLIENT", "LIST"));
        return (int) clients.lines().filter(line -> line.contains(" name=rate-limit ")).count();
    }
}
