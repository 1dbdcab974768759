package dev.ratelimit.store.redis;

import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.UnifiedJedis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The calls behind {@link RedisStore#checkConnection()}: decisions that can never pass, made the way
 * every decision is made, so that they need what decisions need. Here, not in {@link RedisStore}: a
 * Jedis type in the store's own code would make loading the store fail with a bare
 * NoClassDefFoundError when Jedis is missing, before {@link JedisVersion} can say so.
 */
final class ConnectionCheck {
    /** What {@link #run} asks about: a limit of one, so that a request of cost 2 can never pass. */
    private static final Limit CHECK = Limit.of("check", Policy.fixedWindow(1, Duration.ofSeconds(1)));

    private ConnectionCheck() {
    }

    /**
     * The start-up check's calls: one decision, through the store's script and connections, for a
     * request that can never pass (cost 2 of a fixed window of 1), so Redis reads the clock and one
     * key and writes nothing; on a Redis Cluster the store created, one on each master, whose ACL
     * users are set up one by one. It needs what every decision needs: the connection, the password,
     * TLS, the right to call the script (loading it where missing) and to use keys under the prefix,
     * and {@code TIME} and {@code GET}. Throws whatever a call throws.
     *
     * <p>Then it asks each node it checked for {@code INFO memory}, where the user may run it (the
     * README's least ACL user may not: it is not needed), and returns what each node that may evict
     * the store's keys said: a {@code maxmemory} with a {@code maxmemory-policy} other than
     * {@code noeviction}. Redis evicts keys with a TTL under every such policy, and every key of the
     * store has one.
     *
     * @return one line per node that may evict the store's keys ("maxmemory ... with maxmemory-policy
     *         ...", with the node's address on a Cluster); empty when none may, or none would say
     */
    static List<String> run(RedisStore.Settings settings) {
        ScriptLimit check = new ScriptLimit(settings.keyPrefix(), CHECK, settings.library());
        UnifiedJedis redis = settings.connections().client();
        List<String> clients = checkClients(settings, check);
        for (String client : clients) {
            String now = settings.timeFromClock() ? Long.toString(settings.clock().nowMicros()) : ScriptLimit.REDIS_TIME;
            check.script().run(settings.calls(), redis, check.keys(client), check.args(now, 2, settings.ttlSlackMillis()));
        }
        boolean cluster = !settings.connections().masters().isEmpty();
        List<String> evicting = new ArrayList<>();
        for (String client : clients) {
            String key = check.keys(client).get(0);
            String memory = EvictionPolicy.of(redis, key, settings.connections()::isClosed);
            if (memory != null) {
                HostAndPort node = cluster ? settings.connections().nodeOf(key) : null;
                evicting.add((node == null ? "" : "node " + node + ": ") + memory);
            }
        }
        return evicting;
    }

    /** Hashed client ids for {@link #run}: one whose keys each Cluster master owns, else one. */
    private static List<String> checkClients(RedisStore.Settings settings, ScriptLimit check) {
        Set<HostAndPort> masters = settings.connections().masters();
        List<String> clients = new ArrayList<>();
        Set<HostAndPort> covered = new HashSet<>();
        // A master owning a share s of the slots is hit after about 1/s ids: a few per master.
        for (int i = 0; i < 100_000 && (clients.isEmpty() || covered.size() < masters.size()); i++) {
            String client = settings.clientHash().of("connection-check-" + i);
            HostAndPort node = settings.connections().nodeOf(check.keys(client).get(0));
            if (masters.isEmpty() || node != null && covered.add(node)) {
                clients.add(client);
            }
        }
        if (clients.isEmpty()) {
            clients.add(settings.clientHash().of("connection-check")); // a slot map without owners: ask where Jedis sends it
        }
        return clients;
    }
}
