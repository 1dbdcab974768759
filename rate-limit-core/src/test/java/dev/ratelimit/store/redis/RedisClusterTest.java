package dev.ratelimit.store.redis;

import dev.ratelimit.Decision;
import dev.ratelimit.FailureMode;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import dev.ratelimit.StoreHealth;
import dev.ratelimit.Verdict;
import dev.ratelimit.testing.RedisCluster;
import dev.ratelimit.testing.RedisServer;
import org.junit.jupiter.api.AfterAll;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.providers.ClusterConnectionProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The Redis store on a 3-master Redis Cluster formed from Java. */
class RedisClusterTest {
    private static final Duration LONG = Duration.ofDays(400);
    private static RedisCluster cluster;
    private static RedisStore store;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start(3, 0);
        store = RedisStore.builder().url(cluster.url()).readTimeout(Duration.ofSeconds(2)).build();
    }

    @AfterAll
    static void stopCluster() {
        store.close();
        cluster.close();
    }

    @Test
    void clientsSpreadOverEveryMasterAndAClientsKeysShareOneSlot() {
        // Periods long enough that no key expires while 300 clients are written on a loaded machine.
        Limit limit = Limit.of("spread", Policy.tokenBucket(5, 1, Duration.ofMinutes(10)),
                Policy.slidingWindowLog(5, Duration.ofMinutes(10)), Policy.gcra(1, Duration.ofMinutes(10), 5));
        RateLimiter limiter = store.limiter(limit);
        for (int i = 0; i < 300; i++) {
            Decision d = limiter.tryAcquire("client-" + i);
            assertThat(d.source()).isEqualTo(Source.STORE);
            assertThat(d.verdict()).isEqualTo(Verdict.ALLOWED);
        }
        Map<Integer, Integer> keysPerMaster = new HashMap<>();
        Set<Integer> slots = new HashSet<>();
        for (RedisServer master : cluster.currentMasters()) {
            List<String> keys = scan(master, "rl:spread:*");
            keysPerMaster.put(master.port(), keys.size());
            Map<String, Set<Integer>> slotsPerClient = new HashMap<>();
            for (String key : keys) {
                int slot = cluster.slot(key);
                slots.add(slot);
                String client = key.substring(key.indexOf('{'), key.indexOf('}') + 1);
                slotsPerClient.computeIfAbsent(client, c -> new HashSet<>()).add(slot);
            }
            assertThat(slotsPerClient.values()).allSatisfy(s -> assertThat(s).hasSize(1));
            assertThat(keys.size() % 3).as("three keys per client, all on one node").isZero();
        }
        assertThat(keysPerMaster.values()).as("keys per master").allSatisfy(n -> assertThat(n).isGreaterThan(30));
        assertThat(keysPerMaster.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(900);
        assertThat(slots.size()).isGreaterThan(250);
    }

    @Test
    void aCompositeLimitIsOneScriptCallOnTheCluster() {
        RateLimiter limiter = store.limiter(Limit.of("cluster-composite",
                Policy.fixedWindow(3, LONG), Policy.slidingWindowCounter(10, LONG)));
        for (int i = 0; i < 20; i++) {
            String client = "composite-" + i;
            assertThat(limiter.tryAcquire(client, 2).remaining()).isEqualTo(1);
            assertThat(limiter.tryAcquire(client, 2).verdict()).isEqualTo(Verdict.REJECTED);
            Decision last = limiter.tryAcquire(client, 1);
            assertThat(last.verdict()).isEqualTo(Verdict.ALLOWED);
            assertThat(last.remaining()).isZero();
        }
    }

    @Test
    @SuppressWarnings("deprecation") // the constructor users of Jedis 5-7 build it with, deprecated in Jedis 8
    void aPlainUnifiedJedisRoutingToTheClusterIsCalledOneByOneNotPipelinedToOneNode() {
        // Jedis' own cluster-routing UnifiedJedis, whose pipelined() would send every call to one node.
        Set<HostAndPort> nodes = new HashSet<>();
        cluster.currentMasters().forEach(m -> nodes.add(new HostAndPort("127.0.0.1", m.port())));
        try (UnifiedJedis client = new UnifiedJedis(new ClusterConnectionProvider(nodes,
                DefaultJedisClientConfig.builder().timeoutMillis(2_000).build()), 3, Duration.ofSeconds(2));
             RedisStore passedIn = RedisStore.builder().client(client).failureMode(FailureMode.FAIL_CLOSED).build()) {
            RateLimiter limiter = passedIn.limiter(Limit.of("passed-in", Policy.fixedWindow(3, LONG)));
            for (int i = 0; i < 30; i++) {
                Decision d = limiter.tryAcquire("passed-in-" + i);
                assertThat(d.source()).as("client %d", i).isEqualTo(Source.STORE);
                assertThat(d.remaining()).isEqualTo(2);
            }
            assertThat(passedIn.health()).isEqualTo(StoreHealth.UP);
        }
    }

    @Test
    void aStoreThatKnowsOneSeedNodeFollowsMovedAfterTheSlotMigrates() {
        RedisServer seed = cluster.currentMasters().get(0);
        Limit limit = Limit.of("moving", Policy.fixedWindow(5, LONG));
        try (RedisStore oneSeed = RedisStore.builder().url("redis-cluster://127.0.0.1:" + seed.port())
                .readTimeout(Duration.ofSeconds(2)).build()) {
            RateLimiter limiter = oneSeed.limiter(limit);
            assertThat(limiter.tryAcquire("mover").remaining()).isEqualTo(4);
            assertThat(limiter.tryAcquire("mover").remaining()).isEqualTo(3);

            String key = ScriptLimit.key("rl:", limit, ClientHash.sha256().of("mover"), 0);
            int slot = cluster.slot(key);
            RedisServer owner = cluster.masterOf(slot);
            RedisServer target = cluster.currentMasters().stream().filter(m -> m != owner).findFirst().orElseThrow();
            cluster.migrateSlot(slot, target);
            assertThat(cluster.masterOf(slot)).isSameAs(target);
            assertThat(target.call("EXISTS", key)).isEqualTo(1L);

            Decision afterMove = limiter.tryAcquire("mover");
            assertThat(afterMove.source()).isEqualTo(Source.STORE);
            assertThat(afterMove.remaining()).as("state moved with the slot").isEqualTo(2);
            assertThat(limiter.tryAcquire("mover").remaining()).isEqualTo(1);
            assertThat(oneSeed.health()).isEqualTo(dev.ratelimit.StoreHealth.UP);
        }
    }

    static List<String> scan(RedisServer node, String pattern) {
        List<String> keys = new ArrayList<>();
        String cursor = "0";
        do {
            List<?> reply = (List<?>) node.call("SCAN", cursor, "MATCH", pattern, "COUNT", 1000);
            cursor = (String) reply.get(0);
            for (Object key : (List<?>) reply.get(1)) {
                keys.add((String) key);
            }
        } while (!"0".equals(cursor));
        return keys;
    }
}
