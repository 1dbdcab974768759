/**
 * Rate limiting on Redis, ours against Bucket4j's Jedis proxy manager and an EVALSHA
 * {@code return 1} ceiling, each against its own local {@code redis-server} started on a free
 * port: {@link dev.ratelimit.bench.redis.RedisBenchmark} measures decisions per second,
 * {@link dev.ratelimit.bench.redis.RedisCosts} round trips and commands per decision, calls per
 * rejected request and Redis bytes per tracked client.
 */
package dev.ratelimit.bench.redis;
