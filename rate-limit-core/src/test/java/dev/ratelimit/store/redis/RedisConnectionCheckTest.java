package dev.ratelimit.store.redis;

import dev.ratelimit.FailureMode;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimitListener;
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
 * and Cluster), and otherwise says why, naming the store but never its password, while leaving the
 * store's health, breakers and listener as they were.
 */
class RedisConnectionCheckTest {
    private static final Limit LIMIT = Limit.of("check", Policy.fixedWindow(3, Duration.ofMinutes(1)));
    private static final String PASSWORD = "Pa55-never-shown";

    @Test
    void aStoreWhoseRedisAnswersPassesTheCheckWithoutMakingADecision() {
        try (RedisServer redis = RedisServer.start();
             RedisStore store = RedisStore.builder().url(redis.url()).build()) {
            store.checkConnection();
            assertThat(redis.decisionCalls()).isZero();
            assertThat(redis.call("DBSIZE")).as("keys written").isEqualTo(0L);
            assertThat(store.limiter(LIMIT).tryAcquire("client").source()).isEqualTo(Source.STORE);
        }
    }

    @Test
    void anUnreachableRedisFailsTheCheckNamingTheStoreAndTheCauseAndNothingElseChanges() {
        List<String> heard = new ArrayList<>();
        RateLimitListener listener = new RateLimitListener() {
            @Override
            public void onStoreError(Throwable error) {
                heard.add("error");
            }

            @Override
            public void onHealthChange(StoreHealth previous, StoreHealth current) {
                heard.add(previous + "->" + current);
            }
        };
        int port = RedisServer.freePort();
        try (RedisStore store = RedisStore.builder().url("redis://127.0.0.1:" + port).listener(listener)
                .failureMode(FailureMode.FAIL_OPEN).build()) {
            assertThatThrownBy(store::checkConnection).isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("Redis store redis://127.0.0.1:" + port + " failed its connection check: ")
                    .hasMessageContaining("Connection refused");
            assertThat(store.health()).isEqualTo(StoreHealth.UP);
            assertThat(heard).as("the listener hears nothing of the check").isEmpty();
            assertThat(store.limiter(LIMIT).tryAcquire("client").source()).isEqualTo(Source.FAIL_OPEN);
        }
    }

    @Test
    void aWrongPasswordFailsTheCheckSayingSoWithoutShowingIt() {
        try (RedisServer redis = RedisServer.start()) {
            redis.call("CONFIG", "SET", "requirepass", "the-right-one");
            try (RedisStore store = RedisStore.builder().url("redis://:" + PASSWORD + "@127.0.0.1:" + redis.port()).build()) {
                assertThatThrownBy(store::checkConnection).hasMessageContaining("redis://***@127.0.0.1:" + redis.port())
                        .hasMessageContaining("WRONGPASS").hasMessageNotContaining(PASSWORD)
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
            }
        }
    }
}
