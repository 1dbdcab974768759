/**
 * Test support shared with other modules through the core test-jar: real {@code redis-server}
 * processes ({@link dev.ratelimit.testing.RedisServer}, {@link dev.ratelimit.testing.RedisCluster},
 * Sentinel) on free ports, a minimal RESP client for administering them, and the abstract
 * {@link dev.ratelimit.testing.RateLimitStoreContract} every store passes.
 */
package dev.ratelimit.testing;
