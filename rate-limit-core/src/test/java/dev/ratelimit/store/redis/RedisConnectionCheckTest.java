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
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link RedisStore#checkConnection()}, the start-up check: it passes where Redis answers (single node
 * and Cluster), and otherwise says why, naming the store but never its password, and makes the store
 * DEGRADED until Redis answers a call or a check, without opening a breaker: a readiness probe reading
 * the store's health sees the failure before the first decision does.
 */
class RedisConnectionCheckTest {
    private static final Limit LIMIT = Limit.of("check", Policy.fixedWindow(3, Duration.ofMinutes(1)));
    private static final String PASSWORD = "Pa55-never-shown";

    @Test
    void aStoreWhoseRedisAnswersPassesTheCheckWithOneDecisionCallThatWritesNothing() {
        try (RedisServer redis = RedisServer.start();
             RedisStore store = RedisStore.builder().url(redis.url()).build()) {
            store.checkConnection();
            assertThat(redis.decisionCalls()).as("a call of the decision code, as a first decision's").isPositive();
            assertThat(redis.call("DBSIZE")).as("keys written").isEqualTo(0L);
            assertThat(store.limiter(LIMIT).tryAcquire("client").source()).isEqualTo(Source.STORE);
        }
    }

    @Test
    void anUnreachableRedisFailsTheCheckNamingTheStoreAndTheCauseAndTheStoreIsDegradedUntilRedisAnswers() {
        List<String> heard = new ArrayList<>();
        try (RedisServer redis = RedisServer.start()) {
            redis.kill();
            try (RedisStore store = RedisStore.builder().url(redis.url()).listener(recording(heard))
                    .failureMode(FailureMode.FAIL_OPEN).build()) {
                assertThatThrownBy(store::checkConnection).isInstanceOf(IllegalStateException.class)
                        .hasMessageStartingWith("Redis store " + redis.url() + " failed its connection check: ")
                        .hasMessageContaining("Connection refused");
                assertThat(store.health()).as("before any decision").isEqualTo(StoreHealth.DEGRADED);
                assertThat(heard).containsExactly("UP->DEGRADED");

                assertThat(store.limiter(LIMIT).tryAcquire("client").source()).isEqualTo(Source.FAIL_OPEN);
                assertThat(store.health()).isEqualTo(StoreHealth.DEGRADED);
                assertThat(heard).as("a decision's failure: no second change").containsExactly("UP->DEGRADED", "error");

                redis.restart();
                assertThat(store.limiter(LIMIT).tryAcquire("client").source()).isEqualTo(Source.STORE);
                assertThat(store.health()).isEqualTo(StoreHealth.UP);
                assertThat(heard).containsExactly("UP->DEGRADED", "error", "DEGRADED->UP");
            }
        }
    }

    @Test
    void aStoreWithAKeyPrefixOfItsOwnIsNamedByItSoThatAppsSharingOneRedisLogApart() {
        try (RedisServer redis = RedisServer.start()) {
            redis.kill();
            try (RedisStore shop = RedisStore.builder().url(redis.url()).keyPrefix("shop:").build();
                 RedisStore usual = RedisStore.builder().url(redis.url()).keyPrefix("rl:").build()) {
                assertThatThrownBy(shop::checkConnection)
                        .hasMessageStartingWith("Redis store " + redis.url() + " with key prefix shop: failed its connection check: ");
                assertThat(shop.toString()).startsWith("RedisStore[" + redis.url() + " with key prefix shop:, ");
                assertThatThrownBy(usual::checkConnection).as("the default prefix is not named")
                        .hasMessageStartingWith("Redis store " + redis.url() + " failed its connection check: ");
            }
        }
    }

    @Test
    void aCheckThatPassesAfterAFailedOneMakesTheStoreUpWithoutADecisionOfAClient() {
        List<String> heard = new ArrayList<>();
        try (RedisServer redis = RedisServer.start()) {
            redis.kill();
            try (RedisStore store = RedisStore.builder().url(redis.url()).listener(recording(heard)).build()) {
                assertThatThrownBy(store::checkConnection).isInstanceOf(IllegalStateException.class);
                assertThatThrownBy(store::checkConnection).as("failing again changes nothing").isInstanceOf(IllegalStateException.class);
                redis.restart();
                store.checkConnection();

                assertThat(store.health()).isEqualTo(StoreHealth.UP);
                assertThat(heard).containsExactly("UP->DEGRADED", "DEGRADED->UP");
                assertThat(redis.call("DBSIZE")).as("keys written").isEqualTo(0L);
            }
        }
    }

    @Test
    void aCheckThatPassesLeavesAnOpenCircuitBreakerOpen() {
        List<String> heard = new ArrayList<>();
        try (RedisServer redis = RedisServer.start()) {
            redis.kill();
            try (RedisStore store = RedisStore.builder().url(redis.url()).listener(recording(heard))
                    .failureMode(FailureMode.FAIL_OPEN).build()) {
                RateLimiter limiter = store.limiter(LIMIT);
                for (int i = 0; i < 20 && store.health() != StoreHealth.CIRCUIT_OPEN; i++) {
                    assertThat(limiter.tryAcquire("client").source()).isEqualTo(Source.FAIL_OPEN);
                }
                assertThat(store.health()).isEqualTo(StoreHealth.CIRCUIT_OPEN);
                redis.restart();
                store.checkConnection();

                assertThat(store.health()).as("until the breaker's probe succeeds").isEqualTo(StoreHealth.CIRCUIT_OPEN);
                assertThat(heard).doesNotContain("CIRCUIT_OPEN->UP", "DEGRADED->UP");
            }
        }
    }

    /** A listener that adds "error" for each store error and "PREVIOUS->CURRENT" for each health change to {@code heard}. */
    static RateLimitListener recording(List<String> heard) {
        return new RateLimitListener() {
            @Override
            public void onStoreError(Throwable error) {
                heard.add("error");
            }

            @Override
            public void onHealthChange(StoreHealth previous, StoreHealth current) {
                heard.add(previous + "->" + current);
            }
        };
    }

    @Test
    void aWrongPasswordFailsTheCheckSayingSoWithoutShowingIt() {
        try (RedisServer redis = RedisServer.start()) {
            redis.call("CONFIG", "SET", "requirepass", "the-right-one");
            try (RedisStore store = RedisStore.builder().url("redis://:" + PASSWORD + "@127.0.0.1:" + redis.port()).build()) {
                assertThatThrownBy(store::checkConnection).hasMessageContaining("redis://***@127.0.0.1:" + redis.port())
                        .hasMessageContaining("WRONGPASS").hasMessageNotContaining(PASSWORD)
                        .as("without Redis' full stop, before the caller's '; starting anyway'")
                        .hasMessageEndingWith("or user is disabled")
                        .satisfies(e -> assertThat(e.getCause().toString()).doesNotContain(PASSWORD));
            }
        }
    }

    @Test
    void aClosedStoreFailsTheCheckSayingItIsClosed() {
        try (RedisServer redis = RedisServer.start()) {
            RedisStore store = RedisStore.builder().url(redis.url()).build();
            store.close();
            assertThatThrownBy(store::checkConnection).hasMessageContaining("the Redis store is closed");
            assertThat(store.health()).as("closing is no outage").isEqualTo(StoreHealth.UP);
        }
    }

    @Test
    void aClusterPassesTheCheckAndAClusterWithNoSeedAnsweringFailsIt() {
        try (RedisCluster cluster = RedisCluster.start(3, 0)) {
            try (RedisStore store = RedisStore.builder().url(cluster.url()).build()) {
                store.checkConnection();
            }
            int a = RedisServer.freePort();
            int b = RedisServer.freePort();
            String url = "redis-cluster://127.0.0.1:" + a + ",127.0.0.1:" + b;
            try (RedisStore store = RedisStore.builder().url(url).build()) {
                assertThatThrownBy(store::checkConnection).hasMessageStartingWith("Redis store " + url + " failed its connection check: ")
                        .hasMessageContaining("first failure");
                assertThat(store.health()).isEqualTo(StoreHealth.DEGRADED);
            }
        }
    }
}
