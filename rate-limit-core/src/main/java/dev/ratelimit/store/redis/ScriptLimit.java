package dev.ratelimit.store.redis;

import dev.ratelimit.Durations;
import dev.ratelimit.FixedWindow;
import dev.ratelimit.Gcra;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.SlidingWindowLog;
import dev.ratelimit.TokenBucket;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * A limit as the decision script reads it: the policies' parameters encoded once, and the key layout
 * {@code <prefix><limit name>:<state fingerprint>:{<client hash>}:<n>}, one key per policy. The braces
 * are a Redis Cluster hash tag, so every key of one client and limit lives in one slot and a composite
 * limit is one script call.
 *
 * <p>A policy's state fingerprint digests only what gives its stored state a meaning: the algorithm,
 * and the window of a fixed window or sliding window counter (their counts belong to aligned windows)
 * or sliding window log (it is trimmed to its window), the reduced refill rate of a token bucket (its
 * deficit is in units of it), the reduced emission interval of GCRA. A change of the other numbers (a limit, a capacity, a burst) keeps reading the
 * client's state under the new numbers: a lowered limit counts what the client already spent, rather
 * than handing out a fresh quota. {@code n} tells apart the policies of one limit with one fingerprint
 * (0 for the first).
 */
final class ScriptLimit {
    /** {@code ARGV[1]} asking the script to read Redis {@code TIME}. */
    static final String REDIS_TIME = "time";

    private final Limit limit;
    private final DecisionScript script;
    /** Per policy, its key up to the client hash, and after it. */
    private final String[] keyHeads;
    private final String[] keyTails;
    private final String[] policyArgs;

    ScriptLimit(String prefix, Limit limit, FunctionLibrary library) {
        this.limit = limit;
        this.script = DecisionScript.forLimit(limit, library);
        String[][] keyParts = keyParts(prefix, limit);
        this.keyHeads = keyParts[0];
        this.keyTails = keyParts[1];
        List<String> args = new ArrayList<>();
        for (Policy policy : limit.policies()) {
            long[] encoded = encode(policy);
            for (long value : encoded) {
                args.add(Long.toString(value));
            }
        }
        this.policyArgs = args.toArray(String[]::new);
    }

    Limit limit() {
        return limit;
    }

    /** The script that decides this limit. */
    DecisionScript script() {
        return script;
    }

    /** The keys of one client (by its {@link ClientHash}), one per policy. */
    List<String> keys(String clientHash) {
        String[] keys = new String[keyHeads.length];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = keyHeads[i] + clientHash + keyTails[i];
        }
        return Arrays.asList(keys);
    }

    /** The key of {@code limit}'s policy {@code index} for one client (by its {@link ClientHash}), under {@code prefix}. */
    static String key(String prefix, Limit limit, String clientHash, int index) {
        String[][] keyParts = keyParts(prefix, limit);
        return keyParts[0][index] + clientHash + keyParts[1][index];
    }

    /** Per policy, its key up to the client hash ({@code [0]}) and after it ({@code [1]}). */
    private static String[][] keyParts(String prefix, Limit limit) {
        int policies = limit.policies().size();
        String[][] parts = new String[2][policies];
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < policies; i++) {
            String fingerprint = stateFingerprint(limit.policies().get(i));
            parts[0][i] = prefix + limit.name() + ":" + fingerprint + ":{";
            parts[1][i] = "}:" + seen.merge(fingerprint, 0, (n, zero) -> n + 1);
        }
        return parts;
    }

    /**
     * What gives {@code policy}'s stored state its meaning, digested to 16 hex characters (see the
     * class documentation). Written out here, not taken from a record's {@code toString}: keys must not
     * change with the JDK.
     */
    static String stateFingerprint(Policy policy) {
        String meaning;
        if (policy instanceof TokenBucket p) {
            meaning = "token_bucket:" + p.unitsPerToken() + "/" + p.refillUnitsPerMicro();
        } else if (policy instanceof Gcra p) {
            meaning = "gcra:" + p.intervalUnits() + "/" + p.ratePerUnit();
        } else {
            // A log's window too: every admission trims it to the window and it expires with the window,
            // so a log kept under another window would be read as complete when it is not.
            String algorithm = policy instanceof FixedWindow ? "fixed_window:"
                    : policy instanceof SlidingWindowLog ? "sliding_window_log:" : "sliding_window_counter:";
            meaning = algorithm + Durations.toMicros(policy.window());
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(meaning.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }

    /** ARGV: the time (or {@link #REDIS_TIME}), the cost, the TTL slack, then the policies. */
    List<String> args(String now, long cost, long ttlSlackMillis) {
        String[] args = new String[3 + policyArgs.length];
        args[0] = now;
        args[1] = Long.toString(cost);
        args[2] = Long.toString(ttlSlackMillis);
        System.arraycopy(policyArgs, 0, args, 3, policyArgs.length);
        return Arrays.asList(args);
    }

    /** type, p1, p2, p3 as documented in lua/prelude.lua. */
    private static long[] encode(Policy policy) {
        int type = DecisionScript.type(policy);
        if (policy instanceof TokenBucket p) {
            return new long[] {type, p.capacity(), p.unitsPerToken(), p.refillUnitsPerMicro()};
        } else if (policy instanceof Gcra p) {
            return new long[] {type, p.burst(), p.intervalUnits(), p.ratePerUnit()};
        }
        return new long[] {type, policy.limit(), Durations.toMicros(policy.window()), 0};
    }
}
