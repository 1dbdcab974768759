package dev.ratelimit.store.redis;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import dev.ratelimit.StoreHealth;
import dev.ratelimit.testing.RedisBinary;
import dev.ratelimit.testing.RedisCluster;
import dev.ratelimit.testing.RedisServer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scale-out of a Redis Cluster while decisions go on: a new, empty master joins (it has no Functions
 * library: FUNCTION LOAD does not replicate between masters) and slots holding clients' keys move to
 * it (IMPORTING / MIGRATING, MIGRATE, SETSLOT NODE). Decisions, including those made while a slot is
 * half moved (ASK redirections to the new master), are made by Redis from the client's state: the count
 * is neither reset nor left to the failure mode. The one exception is Redis': a multi-key call for
 * keys that are not all on one master while their slot moves gets TRYAGAIN, so a composite limit's
 * client missing one of its keys (brand-new, or its shorter policy's key expired) is decided by the
 * failure mode until the slot has moved.
 */
class RedisClusterReshardTest {
    private static final Duration LONG = Duration.ofDays(400);
    private static final Limit COMPOSITE = Limit.of("reshard-composite",
            Policy.fixedWindow(10, LONG), Policy.slidingWindowCounter(20, LONG));
    private static final Limit SINGLE = Limit.of("reshard-single", Policy.fixedWindow(10, LONG));
    private static final Limit TRAFFIC = Limit.of("reshard-traffic", Policy.fixedWindow(1_000_000, LONG));
    private static final int MOVERS = 3;

    @Test
    void clientsKeepTheirCountsWhileTheirSlotsMoveToANewMasterUnderTraffic() throws Exception {
        moveSlotsToANewMasterUnderTraffic(RedisBinary.find());
    }

    @Test
    void clientsKeepTheirCountsWhileTheirSlotsMoveOnRedis62WhereDecisionsAreScripts() throws Exception {
        // The redis-server bundled in embedded-redis is 6.2: EVALSHA, and NOSCRIPT on the new master.
        moveSlotsToANewMasterUnderTraffic(RedisBinary.embedded());
    }

    private static void moveSlotsToANewMasterUnderTraffic(Path binary) throws Exception {
        Calls calls = new Calls();
        try (RedisCluster cluster = RedisCluster.start(binary, 2, 0);
             RedisStore store = RedisStore.builder().url(cluster.url()).readTimeout(Duration.ofSeconds(1))
                     .listener(calls).build()) {
            RateLimiter composite = store.limiter(COMPOSITE);
            RateLimiter single = store.limiter(SINGLE);
            RedisServer source = cluster.currentMasters().get(0);
            List<String> movers = clientsOn(cluster, source, MOVERS, "mover-");
            List<String> stayers = clientsOn(cluster, cluster.currentMasters().get(1), 2, "stayer-");
            for (String client : concat(movers, stayers)) {
                for (int used = 1; used <= 3; used++) {
                    assertStore(composite.tryAcquire(client), 10 - used, client);
                    assertStore(single.tryAcquire(client), 10 - used, client);
                }
            }

            RedisServer added = cluster.addMaster();
            // Another thread decides throughout the move, for a client on each moving slot and one on the
            // other master; waiting for a round of its decisions covers every client at each step.
            List<String> trafficClients = concat(movers.stream().map(m -> sameSlotAs(m, "traffic-" + m)).toList(),
                    clientsOn(cluster, cluster.currentMasters().get(1), 1, "traffic-"));
            Traffic traffic = new Traffic(store.limiter(TRAFFIC), trafficClients);
            ExecutorService executor = Executors.newSingleThreadExecutor();
            try {
                Future<?> running = executor.submit(traffic);
                traffic.awaitRound();
                for (String mover : movers) {
                    RedisCluster.SlotMigration migration = cluster.startMigration(slotOf(mover), added);
                    // MIGRATING, keys still on the old master: it decides.
                    assertStore(composite.tryAcquire(mover), 6, mover);
                    assertStore(single.tryAcquire(mover), 6, mover);
                    traffic.awaitRound();
                    migration.moveKeys();
                    traffic.awaitRound();
                    // Keys on the new master, which has no library or script yet: ASK, and it decides.
                    assertStore(composite.tryAcquire(mover), 5, mover);
                    assertStore(single.tryAcquire(mover), 5, mover);
                    String newcomer = sameSlotAs(mover, "newcomer-" + mover);
                    assertStore(single.tryAcquire(newcomer), 9, newcomer);
                    // Redis refuses a multi-key call on keys that exist nowhere yet while their slot moves
                    // (TRYAGAIN): a new client of a composite limit is left to the failure mode until then.
                    assertThat(composite.tryAcquire(newcomer).source()).as("%s mid-move", newcomer)
                            .isEqualTo(Source.LOCAL_FALLBACK);
                    migration.finish();
                    assertStore(composite.tryAcquire(newcomer), 9, newcomer);
                    traffic.awaitRound();
                }
                assertThat(cluster.masterOf(slotOf(movers.get(0)))).isSameAs(added);
                assertThat(RedisClusterTest.scan(added, "rl:reshard-*")).as("keys on the new master")
                        .hasSize(MOVERS * (2 + 1 + 1 + 2) + MOVERS);
                // Loads that did not help (ASK to the importing master) pause loading for a second;
                // then the traffic's next call that finds the library missing loads it on the new owner.
                Awaitility.await("the library on the new master").atMost(Duration.ofSeconds(10))
                        .pollInterval(Duration.ofMillis(50)).untilAsserted(() -> assertLibraryOn(added));

                for (String mover : movers) {
                    // 5 of 10 used before and during the move: this is the 6th.
                    assertStore(composite.tryAcquire(mover), 4, mover);
                    assertStore(single.tryAcquire(mover), 4, mover);
                }
                for (String stayer : stayers) {
                    assertStore(composite.tryAcquire(stayer), 6, stayer);
                    assertStore(single.tryAcquire(stayer), 6, stayer);
                }
                traffic.awaitRound();
                traffic.stop();
                running.get();
            } finally {
                traffic.stop();
                executor.shutdownNow();
            }
            assertThat(traffic.thrown).as("exceptions out of tryAcquire").isEmpty();
            assertThat(traffic.notFromStore).as("traffic decisions not made by Redis; store errors: %s", calls.errors)
                    .isEmpty();
            assertThat(calls.errors).as("store errors: one TRYAGAIN per moved slot, the composite newcomer's")
                    .hasSize(MOVERS).allSatisfy(e -> assertThat(e).contains("TRYAGAIN"));
            assertThat(store.health()).isEqualTo(StoreHealth.UP);
        }
    }

    @Test
    void aNewMasterThatReceivesEmptySlotsDecidesItsFirstClients() {
        Calls calls = new Calls();
        try (RedisCluster cluster = RedisCluster.start(2, 0);
             RedisStore store = RedisStore.builder().url(cluster.url()).readTimeout(Duration.ofSeconds(1))
                     .listener(calls).build()) {
            RateLimiter composite = store.limiter(COMPOSITE);
            RateLimiter single = store.limiter(SINGLE);
            List<String> warmUp = clientsOn(cluster, cluster.currentMasters().get(0), 2, "warm-");
            for (String client : warmUp) {
                assertStore(composite.tryAcquire(client), 9, client);
            }

            RedisServer added = cluster.addMaster();
            List<String> newcomers = clientsOn(cluster, cluster.currentMasters().get(0), 3, "first-");
            for (String client : newcomers) {
                cluster.migrateSlot(slotOf(client), added);
            }
            assertThat(added.call("DBSIZE")).isEqualTo(0L);
            for (String client : newcomers) {
                assertStore(composite.tryAcquire(client), 9, client);
                assertStore(single.tryAcquire(client), 9, client);
                assertStore(composite.tryAcquire(client, 2), 7, client);
            }
            assertThat(added.decisionCalls()).as("decided by the new master").isGreaterThanOrEqualTo(9);
            assertLibraryOn(added);
            for (String client : warmUp) {
                assertStore(composite.tryAcquire(client), 8, client);
            }
            assertThat(calls.errors).as("store errors").isEmpty();
            assertThat(store.health()).isEqualTo(StoreHealth.UP);
        }
    }

    @Test
    void aBusyReshardingIsNotAFailingRedisSoItsTryAgainsDoNotOpenTheMastersBreaker() {
        Calls calls = new Calls();
        try (RedisCluster cluster = RedisCluster.start(2, 0);
             RedisStore store = RedisStore.builder().url(cluster.url()).readTimeout(Duration.ofSeconds(1))
                     .circuitBreaker(3, Duration.ofMinutes(10)).listener(calls).build()) {
            RateLimiter composite = store.limiter(COMPOSITE);
            RedisServer source = cluster.currentMasters().get(0);
            String settled = clientsOn(cluster, source, 1, "settled-").get(0);
            assertStore(composite.tryAcquire(settled), 9, settled);
            RedisServer added = cluster.addMaster();
            String first = clientsOn(cluster, source, 2, "moving-").get(1);
            RedisCluster.SlotMigration migration = cluster.startMigration(slotOf(first), added);
            migration.moveKeys();

            // Twice the breaker's threshold of brand-new composite clients in the moving slot: each gets
            // TRYAGAIN (its keys exist on neither master) and the failure mode.
            for (int i = 0; i < 6; i++) {
                String newcomer = sameSlotAs(first, "newcomer-" + i);
                assertThat(composite.tryAcquire(newcomer).source()).as("%s mid-move", newcomer).isEqualTo(Source.LOCAL_FALLBACK);
            }

            // The master answered every one of them: its other clients still decide on Redis.
            assertThat(calls.errors).as("every newcomer's call was made").hasSize(6)
                    .allSatisfy(e -> assertThat(e).contains("TRYAGAIN"));
            assertThat(store.health()).isEqualTo(StoreHealth.UP);
            assertStore(composite.tryAcquire(settled), 8, settled);
            migration.finish();
        }
    }

    @Test
    void anExistingCompositeClientWhoseShorterKeyExpiredIsLeftToTheFailureModeUntilItsSlotHasMoved() {
        // Each key expires on its own, when forgetting it changes nothing: a second after this client's
        // last request its fixed window's key is gone, while its 400-day counter's key lives on.
        Limit shortAndLong = Limit.of("reshard-short-long", Policy.fixedWindow(50, Duration.ofSeconds(1)),
                Policy.slidingWindowCounter(3, LONG));
        Calls calls = new Calls();
        try (RedisCluster cluster = RedisCluster.start(2, 0);
             RedisStore store = RedisStore.builder().url(cluster.url()).readTimeout(Duration.ofSeconds(1))
                     .circuitBreaker(1, Duration.ofMinutes(10)).listener(calls).build()) {
            RateLimiter limiter = store.limiter(shortAndLong);
            RedisServer source = cluster.currentMasters().get(0);
            String regular = clientsOn(cluster, source, 1, "regular-").get(0);
            assertStore(limiter.tryAcquire(regular), 2, regular);
            Awaitility.await("the fixed window's key to expire").atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
                    .until(() -> source.call("EXISTS", ScriptLimit.key("rl:", shortAndLong, ClientHash.sha256().of(regular), 0)).equals(0L));
            assertThat(source.call("EXISTS", ScriptLimit.key("rl:", shortAndLong, ClientHash.sha256().of(regular), 1))).as("the counter's key").isEqualTo(1L);

            RedisServer added = cluster.addMaster();
            RedisCluster.SlotMigration migration = cluster.startMigration(slotOf(regular), added);
            assertThat(limiter.tryAcquire(regular).source()).as("slot migrating, keys not moved yet")
                    .isEqualTo(Source.LOCAL_FALLBACK);
            migration.moveKeys();
            assertThat(limiter.tryAcquire(regular).source()).as("keys moved, slot not yet given")
                    .isEqualTo(Source.LOCAL_FALLBACK);
            assertThat(calls.errors).hasSize(2).allSatisfy(e -> assertThat(e).contains("TRYAGAIN"));
            assertThat(store.health()).as("the master answered: its breaker (threshold 1) stays closed").isEqualTo(StoreHealth.UP);

            migration.finish();
            assertStore(limiter.tryAcquire(regular), 1, regular); // the counter's state moved with the slot
        }
    }

    /** On Redis 7, decisions on {@code master} go by FCALL of the library, loaded there by the store. */
    private static void assertLibraryOn(RedisServer master) {
        if (master.hasFunctions()) {
            assertThat(String.valueOf(master.call("FUNCTION", "LIST", "LIBRARYNAME", "ratelimit_*")))
                    .contains("ratelimit_decide_");
            assertThat(master.calls("cmdstat_fcall")).as("FCALLs on %s", master).isPositive();
        }
    }

    private static void assertStore(Decision d, long remaining, String client) {
        assertThat(d.source()).as("source of %s's decision: %s", client, d).isEqualTo(Source.STORE);
        assertThat(d.remaining()).as("remaining of %s", client).isEqualTo(remaining);
    }

    private static int slotOf(String client) {
        return JedisClusterCRC16.getSlot("{" + ClientHash.sha256().of(client) + "}");
    }

    /** {@code count} client ids whose keys live on {@code master}, each in a slot of its own. */
    private static List<String> clientsOn(RedisCluster cluster, RedisServer master, int count, String prefix) {
        List<String> clients = new ArrayList<>();
        Set<Integer> slots = new LinkedHashSet<>();
        for (int i = 0; clients.size() < count; i++) {
            String client = prefix + i;
            int slot = slotOf(client);
            if (!slots.contains(slot) && cluster.masterOf(slot) == master) {
                slots.add(slot);
                clients.add(client);
            }
        }
        return clients;
    }

    /** A client id starting with {@code prefix} whose keys share {@code client}'s slot. */
    private static String sameSlotAs(String client, String prefix) {
        int slot = slotOf(client);
        for (int i = 0; ; i++) {
            String candidate = prefix + "-" + i;
            if (slotOf(candidate) == slot) {
                return candidate;
            }
        }
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    /** Decides for its clients in a loop until stopped, recording what did not come from Redis. */
    private static final class Traffic implements Runnable {
        final RateLimiter limiter;
        final List<String> clients;
        final AtomicBoolean stopped = new AtomicBoolean();
        final AtomicInteger decisions = new AtomicInteger();
        final List<Throwable> thrown = new CopyOnWriteArrayList<>();
        final List<String> notFromStore = new CopyOnWriteArrayList<>();

        Traffic(RateLimiter limiter, List<String> clients) {
            this.limiter = limiter;
            this.clients = clients;
        }

        @Override
        public void run() {
            for (int i = 0; !stopped.get(); i++) {
                String client = clients.get(i % clients.size());
                try {
                    Decision d = limiter.tryAcquire(client);
                    if (d.source() != Source.STORE) {
                        notFromStore.add(client + ": " + d);
                    }
                } catch (Throwable t) {
                    thrown.add(t);
                }
                decisions.incrementAndGet();
            }
        }

        /** Waits until the traffic thread has decided once more for each of its clients. */
        void awaitRound() {
            int target = decisions.get() + clients.size() + 1;
            Awaitility.await("traffic decisions").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(1))
                    .until(() -> decisions.get() >= target);
        }

        void stop() {
            stopped.set(true);
        }
    }

    /** Store errors, as the listener hears them. */
    private static final class Calls implements RateLimitListener {
        final List<String> errors = new CopyOnWriteArrayList<>();

        @Override
        public void onStoreError(Throwable error) {
            errors.add(String.valueOf(error));
        }
    }
}
