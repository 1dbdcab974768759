package dev.ratelimit.store.redis;

import dev.ratelimit.Durations;
import dev.ratelimit.Gcra;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.TokenBucket;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A limit as the decision script reads it: the policies' parameters encoded once, and the key layout
 * {@code <prefix><limit name>:<fingerprint>:{<client hash>}:<policy index>}. The braces are a Redis
 * Cluster hash tag, so every key of one client and limit lives in one slot and a composite limit is
 * one script call; the fingerprint changes with the policies, so new numbers start from fresh state.
 */
final class ScriptLimit {
    /** {@code ARGV[1]} asking the script to read Redis {@code TIME}. */
    static final String REDIS_TIME = "time";

    private final Limit limit;
    private final DecisionScript script;
    private final String keyBase;
    private final String[] policyArgs;
    private final int policies;

    ScriptLimit(String prefix, Limit limit, FunctionLibrary library) {
        this.limit = limit;
        this.script = DecisionScript.forLimit(limit, library);
        this.keyBase = prefix + limit.name() + ":" + limit.fingerprint() + ":{";
        this.policies = limit.policies().size();
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
        String base = keyBase + clientHash + "}:";
        String[] keys = new String[policies];
        for (int i = 0; i < policies; i++) {
            keys[i] = base + i;
        }
        return Arrays.asList(keys);
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
