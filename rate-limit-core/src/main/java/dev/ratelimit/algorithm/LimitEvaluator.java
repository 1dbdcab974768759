package dev.ratelimit.algorithm;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.Source;
import dev.ratelimit.Verdict;

/**
 * Decides one request against every policy of a {@link Limit}, over one key's state: the
 * policies' states side by side in {@code s[base..base+words())} and their logs in
 * {@code logs[logBase..logBase+logs())}. All-or-nothing: the cost is taken from every policy when
 * all allow it, from none otherwise. The caller guards the state (a lock, a Lua script).
 *
 * <p>Internal: the in-memory store's engine, public only for this library's other packages.
 */
public final class LimitEvaluator {
    private final Limit limit;
    private final Algorithm[] algorithms;
    private final int[] wordOffsets;
    private final int[] logOffsets;
    private final int words;
    private final int logs;
    private final long smallestLimit;

    /**
     * An evaluator for {@code limit}.
     *
     * @param limit the limit to evaluate
     */
    public LimitEvaluator(Limit limit) {
        this.limit = limit;
        int n = limit.policies().size();
        this.algorithms = new Algorithm[n];
        this.wordOffsets = new int[n];
        this.logOffsets = new int[n];
        int w = 0;
        int g = 0;
        for (int i = 0; i < n; i++) {
            Algorithm a = Algorithm.of(limit.policies().get(i));
            algorithms[i] = a;
            wordOffsets[i] = w;
            logOffsets[i] = g;
            w += a.words();
            g += a.keepsLog() ? 1 : 0;
        }
        this.words = w;
        this.logs = g;
        this.smallestLimit = limit.policies().stream().mapToLong(Policy::limit).min().orElseThrow();
    }

    /**
     * The limit evaluated.
     *
     * @return the limit
     */
    public Limit limit() {
        return limit;
    }

    /**
     * Whether a request of {@code cost} can never pass, whatever the state.
     *
     * @param cost the request's weight
     * @return true if it costs more than some policy's limit
     */
    public boolean neverPasses(long cost) {
        return cost > smallestLimit;
    }

    /**
     * Longs of state per key.
     *
     * @return the sum of the policies' {@link Algorithm#words()}
     */
    public int words() {
        return words;
    }

    /**
     * Log objects per key (sliding window logs).
     *
     * @return the number of policies that keep a log
     */
    public int logs() {
        return logs;
    }

    /**
     * Decides a request of {@code cost} at {@code now}, updating the state when it is allowed.
     *
     * @param s        the states array
     * @param base     where this key's state starts in {@code s}
     * @param logArray the logs array
     * @param logBase  where this key's logs start in {@code logArray}
     * @param now      the current time, µs since the epoch
     * @param cost     the request's weight
     * @return the decision, from {@link Source#STORE}
     * @throws IllegalArgumentException if {@code cost < 1}
     */
    public Decision decide(long[] s, int base, Object[] logArray, int logBase, long now, long cost) {
        if (cost < 1) {
            throw new IllegalArgumentException("cost must be >= 1, was " + cost);
        }
        for (int i = 0; i < algorithms.length; i++) {
            algorithms[i].refresh(s, base + wordOffsets[i], logArray, logBase + logOffsets[i], now);
        }
        int decider = -1;
        long longestWait = 0;
        for (int i = 0; i < algorithms.length; i++) {
            long wait = algorithms[i].waitMicros(s, base + wordOffsets[i], logArray, logBase + logOffsets[i], now, cost);
            if (wait == Algorithm.NEVER) {
                return reject(i, Verdict.COST_EXCEEDS_LIMIT, s, base, logArray, logBase, now, Decision.NEVER);
            }
            if (wait > longestWait) {
                longestWait = wait;
                decider = i;
            }
        }
        if (decider >= 0) {
            return reject(decider, Verdict.REJECTED, s, base, logArray, logBase, now, longestWait);
        }
        for (int i = 0; i < algorithms.length; i++) {
            algorithms[i].consume(s, base + wordOffsets[i], logArray, logBase + logOffsets[i], now, cost);
        }
        return describe(closestToRejecting(s, base, logArray, logBase, now), Verdict.ALLOWED, s, base, logArray, logBase, now, 0);
    }

    /**
     * The instant from which the whole key's state equals a fresh state.
     *
     * @param s        the states array
     * @param base     where this key's state starts in {@code s}
     * @param logArray the logs array
     * @param logBase  where this key's logs start in {@code logArray}
     * @return that instant, µs since the epoch; 0 if it already does
     */
    public long forgetAtMicros(long[] s, int base, Object[] logArray, int logBase) {
        long at = 0;
        for (int i = 0; i < algorithms.length; i++) {
            at = Math.max(at, algorithms[i].forgetAtMicros(s, base + wordOffsets[i], logArray, logBase + logOffsets[i]));
        }
        return at;
    }

    /**
     * The policy with the fewest requests left; of those tied, the one whose quota comes back last:
     * once they are used up, the next request waits for that one, so its reset is the one to tell.
     */
    private int closestToRejecting(long[] s, int base, Object[] logArray, int logBase, long now) {
        if (algorithms.length == 1) {
            return 0;
        }
        int best = 0;
        long fewest = Long.MAX_VALUE;
        long latestReset = -1;
        for (int i = 0; i < algorithms.length; i++) {
            int o = base + wordOffsets[i];
            int l = logBase + logOffsets[i];
            long remaining = algorithms[i].remaining(s, o, logArray, l, now);
            if (remaining <= fewest) {
                long reset = algorithms[i].resetAfterMicros(s, o, logArray, l, now);
                if (remaining < fewest || reset > latestReset) {
                    fewest = remaining;
                    latestReset = reset;
                    best = i;
                }
            }
        }
        return best;
    }

    private Decision describe(int i, Verdict verdict, long[] s, int base, Object[] logArray, int logBase, long now, long retryAfter) {
        Algorithm a = algorithms[i];
        int o = base + wordOffsets[i];
        int l = logBase + logOffsets[i];
        return describe(i, verdict, a.remaining(s, o, logArray, l, now), s, base, logArray, logBase, now, retryAfter);
    }

    /**
     * A refusal described by policy {@code i} (the longest wait), but with the fewest requests any
     * policy has left: another policy may have none while {@code i} only lacks room for this cost.
     */
    private Decision reject(int i, Verdict verdict, long[] s, int base, Object[] logArray, int logBase, long now, long retryAfter) {
        long fewest = Long.MAX_VALUE;
        for (int j = 0; j < algorithms.length; j++) {
            fewest = Math.min(fewest, algorithms[j].remaining(s, base + wordOffsets[j], logArray, logBase + logOffsets[j], now));
        }
        return describe(i, verdict, fewest, s, base, logArray, logBase, now, retryAfter);
    }

    private Decision describe(int i, Verdict verdict, long remaining, long[] s, int base, Object[] logArray, int logBase, long now,
                              long retryAfter) {
        Algorithm a = algorithms[i];
        return new Decision(verdict, Source.STORE, a.policy(), a.policy().limit(), remaining,
                a.resetAfterMicros(s, base + wordOffsets[i], logArray, logBase + logOffsets[i], now), retryAfter);
    }
}
