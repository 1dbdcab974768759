package dev.ratelimit.store.redis;

import dev.ratelimit.FailureMode;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import dev.ratelimit.StoreHealth;
import dev.ratelimit.testing.RedisCluster;
import dev.ratelimit.testing.RedisServer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A cluster of 3 masters without replicas (which keeps serving the slots it still has): when one
 * master dies, the clients it held are decided by the failure mode and, once that master's circuit
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

    /** A client id whose keys live on {@code master} ({@code on}) or on another master ({@code !on}). */
    private static String clientOn(RedisCluster cluster, RedisServer master, boolean on) {
        for (int i = 0; ; i++) {
            String client = "client-" + i;
            String key = "rl:" + LIMIT.name() + ":" + LIMIT.fingerprint() + ":{" + ClientHash.sha256().of(client) + "}:0";
            if ((cluster.masterOf(cluster.slot(key)) == master) == on) {
                return client;
            }
        }
    }
}
