package dev.ratelimit.bench.redis;

import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;

/**
 * The Jedis client given to every peer: a pooled {@link RedisClient} with the same pool size,
 * protocol and timeouts as our store builds for itself, so only the rate limiter differs.
 */
final class Clients {
    /** Pooled connections: enough for the 16 client threads of the largest run. */
    static final int POOL_SIZE = 16;
    /** Generous, so that a pause of the busy machine fails nothing (a failure would fail the run loudly). */
    static final int TIMEOUT_MILLIS = 2_000;

    private Clients() {
    }

    static RedisClient pooled(int port) {
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(POOL_SIZE);
        pool.setMaxIdle(POOL_SIZE);
        pool.setMinIdle(0);
        pool.setBlockWhenExhausted(true);
        pool.setJmxEnabled(false);
        return RedisClient.builder()
                .hostAndPort(new HostAndPort("127.0.0.1", port))
                .clientConfig(DefaultJedisClientConfig.builder()
                        .connectionTimeoutMillis(TIMEOUT_MILLIS)
                        .socketTimeoutMillis(TIMEOUT_MILLIS)
                        .resp2()
                        .build())
                .poolConfig(pool)
                .build();
    }
}
