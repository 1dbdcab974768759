package dev.ratelimit.store.redis;

import dev.ratelimit.FixedWindow;
import dev.ratelimit.Gcra;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.SlidingWindowCounter;
import dev.ratelimit.SlidingWindowLog;
import dev.ratelimit.TokenBucket;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * The decision script of the limits that use one set of algorithms: {@code lua/prelude.lua}, those algorithms, and
 * {@code lua/driver.lua}. Redis runs a script's whole body on every call, so a script that defines
 * only the algorithms it needs costs Redis less time per decision than one defining all five.
 *
 * <p>Used where Redis Functions are not ({@link FunctionLibrary}): sent by SHA-1 with EVALSHA, one
 * script call per decision. A node that does not know it (first
 * use, a restart, a new cluster node, a failover) answers NOSCRIPT; the call is then sent once more
 * as EVAL, which leaves the script in that node's script cache.
 */
final class DecisionScript {
    /** The policy type each algorithm has in ARGV, and the part that implements it. */
    static final int TOKEN_BUCKET = 1;
    static final int FIXED_WINDOW = 2;
    static final int SLIDING_WINDOW_LOG = 3;
    static final int SLIDING_WINDOW_COUNTER = 4;
    static final int GCRA = 5;
    private static final String[] PARTS = {null, "token_bucket", "fixed_window", "sliding_window_log",
            "sliding_window_counter", "gcra"};

    private final String source;
    private final String sha1;
    private final FunctionLibrary library;

    private DecisionScript(String source, FunctionLibrary library) {
        this.source = source;
        this.sha1 = sha1(source);
        this.library = library;
    }

    /**
     * The script for {@code limit}: its algorithms, in policy-type order, between prelude and driver;
     * decisions use {@code library} instead while it is available.
     */
    static DecisionScript forLimit(Limit limit, FunctionLibrary library) {
        int algorithms = 0;
        for (Policy policy : limit.policies()) {
            algorithms |= 1 << type(policy);
        }
        // One script per set of algorithms and store, not per limit: a script is about 10 KB of text.
        return library.scripts().computeIfAbsent(algorithms, set -> {
            StringBuilder source = new StringBuilder(part("prelude"));
            for (int type = TOKEN_BUCKET; type <= GCRA; type++) {
                if ((set & 1 << type) != 0) {
                    source.append(part(PARTS[type]));
                }
            }
            source.append(part("driver")).append("return decide(KEYS, ARGV)\n");
            return new DecisionScript(source.toString(), library);
        });
    }

    /** Prelude, every algorithm and the driver: the body of the {@link FunctionLibrary}. */
    static String library() {
        StringBuilder source = new StringBuilder(part("prelude"));
        for (int type = TOKEN_BUCKET; type <= GCRA; type++) {
            source.append(part(PARTS[type]));
        }
        return source.append(part("driver")).toString();
    }

    /** The policy type of {@code policy}, as the script reads it from ARGV. */
    static int type(Policy policy) {
        if (policy instanceof TokenBucket) {
            return TOKEN_BUCKET;
        } else if (policy instanceof FixedWindow) {
            return FIXED_WINDOW;
        } else if (policy instanceof SlidingWindowLog) {
            return SLIDING_WINDOW_LOG;
        } else if (policy instanceof SlidingWindowCounter) {
            return SLIDING_WINDOW_COUNTER;
        } else if (policy instanceof Gcra) {
            return GCRA;
        }
        throw new IllegalArgumentException("policy: unknown type " + policy.getClass().getName());
    }

    String source() {
        return source;
    }

    /**
     * Runs the script through {@code calls} (batched with concurrent calls where it can be); {@code keys} share a hash tag.
     *
     * @return verdict, policy index, remaining, resetAfter µs, retryAfter µs
     */
    long[] run(CallBatcher calls, UnifiedJedis redis, List<String> keys, List<String> args) {
        if (library.available()) {
            long loads = library.loads();
            long offs = library.offs();
            try {
                long[] decided = toLongs(calls.fcall(redis, library.function(), keys, args));
                library.succeeded(offs);
                return decided;
            } catch (JedisDataException e) {
                if (FunctionLibrary.isNotFound(e) && library.loadsPaused()) {
                    return toLongs(redis.eval(source, keys, args)); // a load just did not help: see below
                }
                if (library.recover(redis, keys.get(0), e, loads)) {
                    try {
                        long[] decided = toLongs(calls.fcall(redis, library.function(), keys, args));
                        library.succeeded(offs);
                        return decided;
                    } catch (JedisDataException again) {
                        if (!FunctionLibrary.isNotFound(again)) {
                            throw again;
                        }
                        // Loaded, yet still missing where the call went: a Cluster master
                        // importing the keys' slot during a resharding, reached through ASK, which FUNCTION
                        // LOAD (sent to the masters that own slots) does not reach. EVAL carries its script
                        // and follows the same redirection; once the slot is its own, the master gets the
                        // library like any other. A load that did not help pauses loads (see FunctionLibrary).
                        if (library.loads() != loads) {
                            library.loadDidNotHelp();
                        }
                        return toLongs(redis.eval(source, keys, args));
                    }
                }
            }
        }
        Object reply;
        try {
            reply = calls.evalsha(redis, sha1, keys, args);
        } catch (JedisNoScriptException e) {
            // EVAL carries the script and leaves it in the script cache of the node that ran it, so the
            // next EVALSHA finds it: one call, to the node that owns the keys (SCRIPT LOAD goes to
            // every Cluster node and fails while any of them is down).
            reply = redis.eval(source, keys, args);
        }
        return toLongs(reply);
    }

    private static long[] toLongs(Object reply) {
        if (!(reply instanceof List<?> list) || list.size() != 5) {
            throw new IllegalStateException("unexpected reply from the decision script: " + reply);
        }
        long[] values = new long[5];
        for (int i = 0; i < 5; i++) {
            if (!(list.get(i) instanceof Long value)) {
                throw new IllegalStateException("unexpected reply from the decision script: " + reply);
            }
            values[i] = value;
        }
        return values;
    }

    private static String part(String name) {
        try (InputStream in = DecisionScript.class.getResourceAsStream("lua/" + name + ".lua")) {
            if (in == null) {
                throw new IllegalStateException("lua/" + name + ".lua is missing from the rate-limit-core jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required of every JVM", e);
        }
    }
}
