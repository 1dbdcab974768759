package dev.ratelimit.algorithm;

import dev.ratelimit.Durations;
import dev.ratelimit.Policy;
import dev.ratelimit.SlidingWindowCounter;

/**
 * Sliding window counter. State: {@code s[o]} = start of the current epoch-aligned window,
 * {@code s[o+1]} = units admitted in it, {@code s[o+2]} = units admitted in the window before.
 * At offset {@code e} into the current window the estimate is
 * {@code prev * (W - e) / W + curr}; a request of cost k passes when
 * {@code curr + k <= limit} and {@code prev * (W - e) <= (limit - curr - k) * W}. Every product is at
 * most {@code limit * W < 2^53}, so the Lua twin computes the same.
 */
final class SlidingWindowCounterAlgorithm implements Algorithm {
    private final SlidingWindowCounter policy;
    private final long limit;
    private final long window;

    SlidingWindowCounterAlgorithm(SlidingWindowCounter policy) {
        this.policy = policy;
        this.limit = policy.limit();
        this.window = Durations.toMicros(policy.window());
    }

    private long start(long[] s, int o, long now) {
        long stored = s[o];
        if (now >= stored && now - stored < window) {
            return stored; // stored starts are always aligned: still in that window, no need to divide
        }
        return Math.max(now - Math.floorMod(now, window), stored);
    }

    /** Units in the current window, as of the window starting at {@code start}. */
    private long current(long[] s, int o, long start) {
        return s[o] == start ? s[o + 1] : 0;
    }

    /** Units in the window before the one starting at {@code start}. */
    private long previous(long[] s, int o, long start) {
        if (s[o] == start) {
            return s[o + 2];
        }
        return s[o] == start - window ? s[o + 1] : 0;
    }

    /** Offset into the window, clamped to [0, W) (the clock may stand behind a stored window). */
    private long offset(long start, long now) {
        return Math.max(0, now - start);
    }

    @Override
    public long waitMicros(long[] s, int o, Object[] logs, int l, long now, long cost) {
        if (cost > limit) {
            return NEVER;
        }
        long start = start(s, o, now);
        long curr = current(s, o, start);
        long prev = previous(s, o, start);
        long e = offset(start, now);
        if (curr + cost <= limit) {
            long room = (limit - curr - cost) * window;
            if (prev * (window - e) <= room) {
                return 0;
            }
            // Passes once prev * (W - e') <= room, i.e. at e' = W - floor(room / prev) (<= W).
            return start + window - room / prev - now;
        }
        // The current window alone is full: wait into the next, where curr becomes the previous window.
        long roomNext = (limit - cost) * window;
        long eNext = Math.max(0, window - roomNext / curr);
        return start + window + eNext - now;
    }

    @Override
    public void consume(long[] s, int o, Object[] logs, int l, long now, long cost) {
        long start = start(s, o, now);
        long curr = current(s, o, start);
        long prev = previous(s, o, start);
        s[o] = start;
        s[o + 1] = curr + cost;
        s[o + 2] = prev;
    }

    @Override
    public long remaining(long[] s, int o, Object[] logs, int l, long now) {
        long start = start(s, o, now);
        long weighted = ceilDiv(previous(s, o, start) * (window - offset(start, now)), window);
        return Math.max(0, limit - current(s, o, start) - weighted);
    }

    @Override
    public long resetAfterMicros(long[] s, int o, Object[] logs, int l, long now) {
        long start = start(s, o, now);
        if (current(s, o, start) > 0) {
            return start + 2 * window - now;
        }
        return previous(s, o, start) > 0 ? start + window - now : 0;
    }

    @Override
    public long forgetAtMicros(long[] s, int o, Object[] logs, int l) {
        if (s[o + 1] > 0) {
            return s[o] + 2 * window;
        }
        return s[o + 2] > 0 ? s[o] + window : 0;
    }

    private static long ceilDiv(long a, long b) {
        return -Math.floorDiv(-a, b);
    }

    @Override
    public Policy policy() {
        return policy;
    }

    @Override
    public int words() {
        return 3;
    }
}
