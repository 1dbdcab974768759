package dev.ratelimit.store.redis;

import dev.ratelimit.testing.RedisServer;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A pool on {@link FreshConnectionFactory} hands out no connection made before the last
 * {@link FreshConnectionFactory#expireAll()}: neither one idle then, nor one in use then and returned
 * after; it closes them instead. Until then, it hands out the idle ones as any pool does.
 */
class FreshConnectionFactoryTest {
    private static RedisServer redis;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    private static ConnectionPool pool(FreshConnectionFactory factory) {
        GenericObjectPoolConfig<Connection> config = new GenericObjectPoolConfig<>();
        config.setJmxEnabled(false);
        config.setTestOnBorrow(true);
        return new ConnectionPool(factory, config);
    }

    private static FreshConnectionFactory factory() {
        return new FreshConnectionFactory(new HostAndPort("127.0.0.1", redis.port()),
                DefaultJedisClientConfig.builder().resp2().build());
    }

    @Test
    void idleConnectionsAreReusedUntilExpired() {
        try (ConnectionPool pool = pool(factory())) {
            Connection first = pool.getResource();
            first.close();

            Connection again = pool.getResource();

            assertThat(again).isSameAs(first);
            assertThat(pool.getCreatedCount()).isEqualTo(1);
            again.close();
        }
    }

    @Test
    void noConnectionMadeBeforeTheExpiryIsHandedOutAgainWhetherIdleOrInUseThen() {
        FreshConnectionFactory factory = factory();
        try (ConnectionPool pool = pool(factory)) {
            Connection inUse = pool.getResource();
            Connection idle = pool.getResource();
            idle.close();

            factory.expireAll();
            inUse.close(); // comes back after the expiry, as a call's connection does

            Connection next = pool.getResource();
            Connection second = pool.getResource();

            assertThat(next).isNotSameAs(inUse).isNotSameAs(idle);
            assertThat(second).isNotSameAs(inUse).isNotSameAs(idle).isNotSameAs(next);
            assertThat(pool.getDestroyedCount()).as("both old connections closed").isEqualTo(2);
            assertThat(inUse.isConnected()).isFalse();
            assertThat(idle.isConnected()).isFalse();
            assertThat(next.ping()).isTrue();
            next.close();
            second.close();
        }
    }
}
