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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A cluster of 3 masters with a replica each: after a manual failover, after a master is killed and
 * its replica promoted, and after a master stops answering and its replica is promoted, decisions go
 * on from the replicated state.
 */
class RedisClusterFailoverTest {
    private static final Limit LIMIT = Limit.of("failover", Policy.fixedWindow(100, Duration.ofDays(400)));
    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start(3, 1);
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @Test
    void decisionsGoOnAfterAManualFailoverAndAfterAMasterDies() {
        assertThat(cluster.nodes()).hasSize(6);
        assertThat(cluster.currentMasters()).hasSize(3);
        try (RedisStore store = RedisStore.builder().url(cluster.url()).failureMode(FailureMode.FAIL_CLOSED)
                .readTimeout(Duration.ofSeconds(1)).build()) {
            RateLimiter limiter = store.limiter(LIMIT);
            assertThat(limiter.tryAcquire("survivor", 10).remaining()).isEqualTo(90);
            int slot = cluster.slot(survivorKey());
            RedisServer owner = cluster.masterOf(slot);
            assertThat(owner.awaitReplicas(1, Duration.ofSeconds(10))).as("the replica has the client's state").isEqualTo(1L);

            RedisServer promoted = cluster.failover(cluster.currentMasters().indexOf(owner));
            assertThat(cluster.masterOf(slot)).isSameAs(promoted);
            assertThat(limiter.tryAcquire("survivor", 10).remaining()).as("after manual failover").isEqualTo(80);

            assertThat(promoted.awaitReplicas(1, Duration.ofSeconds(10))).as("the new replica has the client's state").isEqualTo(1L);
            RedisServer second = cluster.killMasterAndAwaitPromotion(cluster.currentMasters().indexOf(promoted));
            assertThat(cluster.masterOf(slot)).isSameAs(second);
            // The first calls may hit the dead node until the slot map is refreshed; then state is intact.
            Decision after = Awaitility.await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                    .until(() -> limiter.tryAcquire("survivor", 10), d -> d.source() == Source.STORE);
            assertThat(after.remaining()).as("after the master died").isEqualTo(70);
        }
    }

    @Test
    void decisionsMoveToThePromotedReplicaWhenTheMasterStopsAnsweringRatherThanRefusing() {
        // A host that is down answers nothing: calls time out instead of being refused, so no call is
        // tried twice and Jedis never reads the slot map again by itself. Default timeouts (100 ms).
        // The listener throws on every failure, which must change nothing: it once stopped the store
        // from reading the slot map again, and decisions never reached the promoted replica.
        RateLimitListener throwing = new RateLimitListener() {
            @Override
            public void onStoreError(Throwable error) {
                throw new IllegalStateException("a listener that fails");
            }
        };
        try (RedisCluster frozenOne = RedisCluster.start(3, 1);
             RedisStore store = RedisStore.builder().url(frozenOne.url()).failureMode(FailureMode.FAIL_CLOSED).listener(throwing).build()) {
            RateLimiter limiter = store.limiter(LIMIT);
            assertThat(limiter.tryAcquire("survivor", 10).remaining()).isEqualTo(90);
            int slot = frozenOne.slot(survivorKey());
            RedisServer owner = frozenOne.masterOf(slot);
            assertThat(owner.awaitReplicas(1, Duration.ofSeconds(10))).as("the replica has the client's state").isEqualTo(1L);
            try {
                RedisServer promoted = frozenOne.freezeMasterAndAwaitPromotion(frozenOne.currentMasters().indexOf(owner));
                assertThat(frozenOne.masterOf(slot)).isSameAs(promoted);

                Decision after = Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                        .until(() -> limiter.tryAcquire("survivor", 10), d -> d.source() == Source.STORE);
                assertThat(after.remaining()).as("on the promoted replica").isEqualTo(80);

                // The frozen master owns no slot any more: the store is UP again in seconds, not a minute later.
                Awaitility.await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(100)).until(() -> {
                    limiter.tryAcquire("elsewhere");
                    return store.health() == StoreHealth.UP;
                });
            } finally {
                owner.resume();
            }
        }
    }

    private static String survivorKey() {
        return ScriptLimit.key("rl:", LIMIT, ClientHash.sha256().of("survivor"), 0);
    }
}
