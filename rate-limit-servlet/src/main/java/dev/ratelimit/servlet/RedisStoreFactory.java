package dev.ratelimit.servlet;

import dev.ratelimit.RateLimitStore;

/** Builds the Redis store from init-params; the only class here that links the Redis store and Jedis. */
final class RedisStoreFactory {
    private RedisStoreFactory() {
    }

    static RateLimitStore create(RedisParams params) {
        throw new IllegalArgumentException("the Redis store is not available in this build yet");
    }
}
