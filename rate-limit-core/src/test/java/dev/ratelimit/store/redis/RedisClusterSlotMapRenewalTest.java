package dev.ratelimit.store.redis;

import dev.ratelimit.FailureMode;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import dev.ratelimit.testing.RedisCluster;
import dev.ratelimit.testing.RedisServer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * After a call to a Cluster master fails, the store reads the slot map again (a master that stopped
 * answering may have been replaced by its replica, and no reply says so), but at most once a second
 * of the store's clock, however many calls fail: every failing request asking every node for the
 * slot map would add load to a cluster already in trouble. A clock stepped back does not hold the
 * next reading off. The master that stops answering is frozen (calls time out: Jedis neither sends
 * them again nor reads the map by itself), and it is the last seed, so a reading asks a live node first.
 */
class RedisClusterSlotMapRenewalTest {
    private static final Limit LIMIT = Limit.of("slot-map", Policy.fixedWindow(1_000, Duration.ofDays(1)));
    private static final String RENEWAL_THREAD = "rate-limit-cluster-slots";

    private final ManualClock clock = new ManualClock(1_000_000_000_000L);
    private RedisCluster cluster;
    private RedisServer frozen;
    private List<RedisServer> live;

    @BeforeEach
    void startCluster() {
        cluster = RedisCluster.start(3, 0);
        List<RedisServer> masters = cluster.currentMasters();
        frozen = masters.get(2);
        live = masters.subList(0, 2);
    }

    @AfterEach
    void stopCluster() {
        cluster.close();
    }

    @Test
    void failedCallsReadTheSlotMapAgainAtMostOnceASecondOfTheStoresClock() {
        whileTheMasterIsFrozen(fail -> {
            for (int i = 0; i < 3; i++) {
                fail.run();
            }
            assertThat(slotMapReadings()).as("three failed calls at one instant").isEqualTo(1);

            clock.advanceMicros(999_999);
            fail.run();
            assertThat(slotMapReadings()).as("a failure within the second").isEqualTo(1);

            clock.advanceMicros(1);
            fail.run();
            assertThat(slotMapReadings()).as("a failure a second after the reading").isEqualTo(2);
        });
    }

    @Test
    void aClockSteppedBackDoesNotHoldOffTheNextReadingOfTheSlotMap() {
        whileTheMasterIsFrozen(fail -> {
            fail.run();
            assertThat(slotMapReadings()).isEqualTo(1);

            clock.advance(Duration.ofMinutes(-10));
            fail.run();
            assertThat(slotMapReadings()).as("a failure after the clock stepped back 10 minutes").isEqualTo(2);
        });
    }

    /**
     * A store that has decided once for a client of the frozen master, with the live masters' stats
     * reset; then {@code steps}, given one decision of that client that fails on the frozen master.
     */
    private void whileTheMasterIsFrozen(Consumer<Runnable> steps) {
        try (RedisStore store = store()) {
            RateLimiter limiter = store.limiter(LIMIT);
            String client = clientOnFrozenMaster();
            assertThat(limiter.tryAcquire(client).source()).isEqualTo(Source.STORE);
            resetStats();
            frozen.pause();
            try {
                steps.accept(() -> failOnce(limiter, client));
            } finally {
                frozen.resume();
            }
        }
    }

    private RedisStore store() {
        // Every call goes to Redis (the breaker never opens here) and fails within 200 ms.
        return RedisStore.builder().url(cluster.url()).failureMode(FailureMode.FAIL_CLOSED).clock(clock)
                .readTimeout(Duration.ofMillis(200)).circuitBreaker(1_000, Duration.ofMinutes(10)).build();
    }

    /** One decision that times out on the frozen master; then waits until the reading it started (if any) is done. */
    private void failOnce(RateLimiter limiter, String client) {
        assertThat(limiter.tryAcquire(client).source()).isEqualTo(Source.FAIL_CLOSED);
        Awaitility.await("slot map readings to finish").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10))
                .until(() -> Thread.getAllStackTraces().keySet().stream()
                        .noneMatch(t -> t.getName().equals(RENEWAL_THREAD) && t.isAlive()));
    }

    /** CLUSTER SLOTS calls the live masters answered since {@link #resetStats()}: each reading asks until one answers. */
    private long slotMapReadings() {
        long n = 0;
        for (RedisServer node : live) {
            n += node.calls("cmdstat_cluster|slots");
        }
        return n;
    }

    private void resetStats() {
        for (RedisServer node : live) {
            node.call("CONFIG", "RESETSTAT");
        }
    }

    private String clientOnFrozenMaster() {
        for (int i = 0; ; i++) {
            String client = "client-" + i;
            String key = ScriptLimit.key("rl:", LIMIT, ClientHash.sha256().of(client), 0);
            if (cluster.masterOf(cluster.slot(key)) == frozen) {
                return client;
            }
        }
    }
}
