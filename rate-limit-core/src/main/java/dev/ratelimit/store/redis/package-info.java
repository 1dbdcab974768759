/**
 * The Redis store: {@link dev.ratelimit.store.redis.RedisStore}, state shared by every instance of a
 * service through one atomic Lua script per decision, on a single node, Redis Cluster or Sentinel
 * (Jedis' {@code UnifiedJedis} family). The only package that uses Jedis, an optional dependency.
 */
package dev.ratelimit.store.redis;
