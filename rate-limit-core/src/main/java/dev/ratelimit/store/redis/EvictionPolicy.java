package dev.ratelimit.store.redis;

import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;

import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether a Redis node may evict the store's keys when it is full, from its {@code INFO memory}: it
 * may when {@code maxmemory} is set and {@code maxmemory-policy} is not {@code noeviction}. A client
 * whose key is evicted starts again from a full quota, so such a node lets clients through beyond
 * their limits whenever it fills up.
 */
final class EvictionPolicy {
    private static final Pattern MAXMEMORY = Pattern.compile("(?m)^maxmemory:(\\d+)\\r?$");
    private static final Pattern POLICY = Pattern.compile("(?m)^maxmemory_policy:([a-z-]+)\\r?$");

    private EvictionPolicy() {
    }

    /**
     * "maxmemory N with maxmemory-policy P" when the node that owns {@code routingKey} may evict keys;
     * null when it may not, or does not say: {@code INFO} refused (an ACL user without it, a managed
     * Redis that hides it), failed, or answered in a form not understood. Never throws. A wait for a
     * connection interrupted keeps the thread's interrupt, unless the interrupt was the pool's, closing
     * with the store ({@code storeClosed}).
     */
    static String of(UnifiedJedis redis, String routingKey, BooleanSupplier storeClosed) {
        String info;
        try {
            Object reply = redis.executeCommand(new RoutedCommand(routingKey, Protocol.Command.INFO, "memory"));
            info = reply instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(reply);
        } catch (RuntimeException notSaid) {
            if (CallFailure.isCancellation(notSaid) && !storeClosed.getAsBoolean()) {
                Thread.currentThread().interrupt(); // an interrupted wait for a connection cleared it
            }
            return null;
        }
        Matcher max = MAXMEMORY.matcher(info);
        Matcher policy = POLICY.matcher(info);
        if (!max.find() || !policy.find() || max.group(1).equals("0") || policy.group(1).equals("noeviction")) {
            return null;
        }
        return "maxmemory " + max.group(1) + " with maxmemory-policy " + policy.group(1);
    }
}
