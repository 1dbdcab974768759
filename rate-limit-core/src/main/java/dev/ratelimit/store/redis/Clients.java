package dev.ratelimit.store.redis;

import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.DefaultRedisCredentials;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.SslOptions;
import redis.clients.jedis.providers.ClusterConnectionProvider;
import redis.clients.jedis.providers.PooledConnectionProvider;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The Jedis client a store makes from its URL: single node, Cluster or Sentinel, every wait bounded
 * by the connect and read timeouts (borrowing a pooled connection too). A cluster call tries at most
 * three times (one MOVED or ASK redirection and one retry), and not again once its read timeout has
 * passed. A single node's pool tests each connection it lends, for free ({@link FreshConnectionFactory}).
 */
final class Clients {
    /** The attempts of one cluster call (also a batched call's, sent again on its own: see {@link CallBatcher}). */
    static final int CLUSTER_ATTEMPTS = 3;

    private Clients() {
    }

    /** @param passwordFile where the password is read at each login, instead of the URL's; null for the URL's */
    static Connections.Created create(RedisUrl url, Duration connectTimeout, Duration readTimeout, int poolSize,
                                  SslOptions ssl, PasswordFile passwordFile) {
        DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(millis(connectTimeout))
                .socketTimeoutMillis(millis(readTimeout))
                .clientName("rate-limit")
                .resp2();
        if (passwordFile == null) {
            config.user(url.user()).password(url.password());
        } else {
            // Asked each time a connection logs in: a password replaced in the file is used from the next login on.
            String user = url.user();
            config.credentialsProvider(() -> new DefaultRedisCredentials(user, passwordFile.current()));
        }
        if (ssl != null) {
            config.sslOptions(ssl);
        } else if (url.tls()) {
            // The JVM's default SSL context, as HTTPS clients use: its trust store and its key store
            // (-Djavax.net.ssl.keyStore), so a URL alone reaches a server that asks for a client
            // certificate. Jedis verifies the host name then too. SslOptions.defaults() has no key store.
            config.ssl(true);
        }
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(poolSize);
        pool.setMaxIdle(poolSize);
        pool.setMinIdle(0);
        pool.setBlockWhenExhausted(true);
        pool.setMaxWait(readTimeout);
        pool.setJmxEnabled(false);
        Set<HostAndPort> nodes = new LinkedHashSet<>();
        for (RedisUrl.Node node : url.nodes()) {
            nodes.add(new HostAndPort(node.host(), node.port()));
        }
        return switch (url.kind()) {
            case STANDALONE -> {
                JedisClientConfig clientConfig = config.database(url.database()).build();
                FreshConnectionFactory made = new FreshConnectionFactory(nodes.iterator().next(), clientConfig);
                pool.setTestOnBorrow(true); // free: see FreshConnectionFactory
                yield new Connections.Created(RedisClient.builder()
                        .clientConfig(clientConfig)
                        .connectionProvider(new PooledConnectionProvider(made, pool))
                        .build(), null, made);
            }
            case CLUSTER -> {
                JedisClientConfig clientConfig = config.build();
                // Our own provider, so the store can ask which master owns a slot (one breaker per master).
                // It also tells which node a failed call went to: during a resharding, not always the slot's owner.
                ClusterConnectionProvider slots = new NodeRecordingProvider(nodes, clientConfig, pool);
                try {
                    yield new Connections.Created(RedisClusterClient.builder()
                            .nodes(nodes)
                            .clientConfig(clientConfig)
                            .connectionProvider(slots)
                            .maxAttempts(CLUSTER_ATTEMPTS)
                            // Jedis sends a call again after any connection error, a read timeout too,
                            // and a call that timed out may still run: each copy would charge the
                            // client. No attempt starts once the read timeout has passed, so only
                            // calls that failed fast (a redirection, a refused or broken connection)
                            // are sent again.
                            .maxTotalRetriesDuration(readTimeout)
                            .build(), slots);
                } catch (RuntimeException e) {
                    slots.close();
                    throw e;
                }
            }
            case SENTINEL -> {
                JedisClientConfig sentinelConfig = DefaultJedisClientConfig.builder()
                        .connectionTimeoutMillis(millis(connectTimeout))
                        .socketTimeoutMillis(millis(readTimeout))
                        .clientName("rate-limit-sentinel")
                        .resp2()
                        .build();
                yield new Connections.Created(RedisSentinelClient.builder()
                        .masterName(url.master())
                        .sentinels(nodes)
                        .clientConfig(config.database(url.database()).build())
                        .sentinelClientConfig(sentinelConfig)
                        .poolConfig(pool)
                        .build(), null);
            }
        };
    }

    private static int millis(Duration d) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, d.toMillis()));
    }
}
