package dev.ratelimit.store.redis;

import dev.ratelimit.Clock;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Cluster store's first and last calls: failures before the slot map is known count against the
 * master that owns the keys, not a breaker nothing uses again; a decision in flight when the store
 * closes leaves no connection open behind it.
 */
class RedisClusterFirstAndLastCallsTest {
    private static final Limit LIMIT = Limit.of("first-last", Policy.fixedWindow(1_000_000, Duration.ofDays(1)));
    private static RedisCluster cluster;

    @BeforeAll
    static void start() {
        cluster = RedisCluster.start(3, 0);
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    private static long storeConnections() {
        long n = 0;
        for (RedisServer node : cluster.nodes()) {
            String list = (String) node.call("CLIENT", "LIST");
            for (String line : list.split("\n")) {
                if (line.contains(" name=rate-limit ")) {
                    n++;
                }
            }
        }
        return n;
    }

    /**
     * The first decisions of a cluster store go through the shared breaker (no slot map yet). If they fail
     * with an error reply, the shared breaker opens; once the cluster answers, every decision succeeds
     * through its master's breaker, yet the store's health stays CIRCUIT_OPEN.
     */
    @Test
    void healthIsUpOnceEveryDecisionSucceedsAgain() {
        ManualClock clock = new ManualClock(1_000_000_000_000L);
        List<StoreHealth> heard = new CopyOnWriteArrayList<>();
        List<RedisServer> masters = cluster.currentMasters();
        try (RedisStore store = RedisStore.builder().url(cluster.url()).failureMode(FailureMode.FAIL_CLOSED).clock(clock)
                .readTimeout(Duration.ofSeconds(1)).circuitBreaker(1, Duration.ofSeconds(1))
                .listener(new RateLimitListener() {
                    @Override
                    public void onHealthChange(StoreHealth previous, StoreHealth current) {
                        heard.add(current);
                    }
                }).build()) {
            RateLimiter limiter = store.limiter(Limit.of("first-last-health", Policy.fixedWindow(100, Duration.ofDays(1))));
            // Every master full (noeviction): the first decision fails with an error reply (OOM), Redis answers.
            for (RedisServer m : masters) {
                m.call("CONFIG", "SET", "maxmemory-policy", "noeviction");
                m.call("CONFIG", "SET", "maxmemory", "1");
            }
            try {
                Decision first = limiter.tryAcquire("client-0");
                assertThat(first.source()).isEqualTo(Source.FAIL_CLOSED);
            } finally {
                for (RedisServer m : masters) {
                    m.call("CONFIG", "SET", "maxmemory", "0");
                }
            }
            clock.advance(Duration.ofSeconds(2));
            // Redis is fine again: every client of every master decides on Redis...
            for (int i = 0; i < 60; i++) {
                Decision d = limiter.tryAcquire("client-" + i);
                assertThat(d.source()).as("client-" + i).isEqualTo(Source.STORE);
                clock.advance(Duration.ofMillis(500));
            }
            // ...30 s of successful decisions later, on every master: the store should be UP.
            assertThat(store.health()).as("health after 30 s of successful decisions; heard " + heard).isEqualTo(StoreHealth.UP);
        }
    }

    /**
     * The same race made deterministic: the store is closed while a decision is between taking the
     * cluster client and its call (here: right after its FCALL found no library, the clock being read
     * by the store at that point). The decision then goes on with the closed client, which rebuilds its
     * slot map and pools, opens a new connection, and leaves it open for good.
     */
    @Test
    void aDecisionInFlightWhenTheStoreClosesOpensNoNewConnection() {
        AtomicLong armed = new AtomicLong(-1);
        RedisStore[] holder = new RedisStore[1];
        ManualClock time = new ManualClock(1_000_000_000_000L);
        Clock clock = () -> {
            if (armed.get() >= 0 && armed.incrementAndGet() == 2) {
                holder[0].close(); // another thread's close(), at this point of the decision
            }
            return time.nowMicros();
        };
        RedisStore store = RedisStore.builder().url(cluster.url()).failureMode(FailureMode.FAIL_CLOSED).clock(clock)
                .readTimeout(Duration.ofSeconds(1)).build();
        holder[0] = store;
        RateLimiter limiter = store.limiter(LIMIT);
        assertThat(limiter.tryAcquire("warm-up").source()).isEqualTo(Source.STORE);
        for (RedisServer m : cluster.currentMasters()) {
            m.call("FUNCTION", "FLUSH");
        }
        Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(storeConnections()).isPositive());
        armed.set(0);
        Decision d = limiter.tryAcquire("in-flight");
        long after = storeConnections();
        Decision later = limiter.tryAcquire("after-close");
        assertThat(later.source()).isEqualTo(Source.FAIL_CLOSED);
        assertThat(armed.get()).as("the store was closed during the decision").isGreaterThanOrEqualTo(2);
        Awaitility.await("connections of the closed store (decision in flight: " + d.source() + ", right after: " + after + ")")
                .atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> assertThat(storeConnections()).isZero());
    }
}
