package dev.ratelimit.reliability;

import dev.ratelimit.testing.Resp;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads what a test Redis holds, with the harness' own client: every key ({@code SCAN}), and the time
 * to live of many keys at once ({@code PTTL} in a script, a thousand keys per call).
 */
final class RedisKeys {
    private static final String PTTL_ALL = "local r = {} for i, k in ipairs(KEYS) do r[i] = redis.call('PTTL', k) end return r";

    private RedisKeys() {
    }

    /** Every key of the node on {@code port}. */
    static List<String> all(int port) {
        List<String> keys = new ArrayList<>();
        String cursor = "0";
        do {
            List<?> reply = (List<?>) Resp.call(port, "SCAN", cursor, "COUNT", 10_000);
            cursor = (String) reply.get(0);
            for (Object key : (List<?>) reply.get(1)) {
                keys.add((String) key);
            }
        } while (!cursor.equals("0"));
        return keys;
    }

    /** {@code PTTL} of each key, in order: milliseconds left, -1 for a key without a TTL, -2 for a key gone since. */
    static List<Long> pttl(int port, List<String> keys) {
        List<Long> ttls = new ArrayList<>(keys.size());
        for (int from = 0; from < keys.size(); from += 1000) {
            List<String> batch = keys.subList(from, Math.min(keys.size(), from + 1000));
            List<Object> command = new ArrayList<>(List.of("EVAL", PTTL_ALL, batch.size()));
            command.addAll(batch);
            for (Object ttl : (List<?>) Resp.call(port, command.toArray())) {
                ttls.add((Long) ttl);
            }
        }
        return ttls;
    }

    /** {@code DBSIZE}. */
    static long count(int port) {
        return (Long) Resp.call(port, "DBSIZE");
    }
}
