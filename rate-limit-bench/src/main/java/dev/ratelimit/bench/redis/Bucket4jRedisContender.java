package dev.ratelimit.bench.redis;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.jedis.Bucket4jJedis;
import redis.clients.jedis.RedisClient;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * Bucket4j's Jedis proxy manager (compare-and-swap: GET, then an EVAL of its CAS script) on a
 * pooled {@link RedisClient}, with keys expiring once their bucket would be full again (Bucket4j's
 * recommended {@code basedOnTimeForRefillingBucketUpToMax}), answering with a
 * {@link ConsumptionProbe} as a filter sending headers does. It runs on the Jedis version our build
 * pins, through Jedis' {@code UnifiedJedis} API, which it was compiled against (Jedis 4) and which
 * still has the same methods.
 */
final class Bucket4jRedisContender implements RedisContender {
    private final RedisClient client;
    private final ProxyManager<byte[]> proxies;
    private final Supplier<BucketConfiguration> configuration;
    private final long prespend;

    Bucket4jRedisContender(int port, long capacity, Duration perToken, long prespend) {
        this.client = Clients.pooled(port);
        this.proxies = Bucket4jJedis.casBasedBuilder(client)
                .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(1)))
                .build();
        BucketConfiguration config = BucketConfiguration.builder()
                .addLimit(limit -> limit.capacity(capacity).refillGreedy(1, perToken))
                .build();
        this.configuration = () -> config;
        this.prespend = prespend;
    }

    @Override
    public Object decide(String key) {
        return proxies.builder().build(key.getBytes(StandardCharsets.UTF_8), configuration).tryConsumeAndReturnRemaining(1);
    }

    @Override
    public boolean allowed(Object result) {
        return ((ConsumptionProbe) result).isConsumed();
    }

    @Override
    public void prepare(String key) {
        proxies.builder().build(key.getBytes(StandardCharsets.UTF_8), configuration).tryConsume(Math.max(1, prespend));
    }

    @Override
    public void close() {
        client.close();
    }
}
