package dev.ratelimit.algorithm;

import dev.ratelimit.Durations;
import dev.ratelimit.FixedWindow;
import dev.ratelimit.Policy;

/**
 * Fixed window: windows start at multiples of the window length since the epoch. State:
 * {@code s[o]} = start of the counted window, {@code s[o+1]} = units admitted in it.
 */
final class FixedWindowAlgorithm implements Algorithm {
    private final FixedWindow policy;
    private final long limit;
    private final long window;

    FixedWindowAlgorithm(FixedWindow policy) {
        this.policy = policy;
        this.limit = policy.limit();
        this.window = Durations.toMicros(policy.window());
    }

    /** The start of the window in force at {@code now}: the current one, or a later stored one if the clock went back. */
    private long start(long[] s, int o, long now) {
        long stored = s[o];
        if (now >= stored && now - stored < window) {
            return stored; // stored starts are always aligned: still in that window, no need to divide
        }
        return Math.max(now - Math.floorMod(now, window), stored);
    }

    private long count(long[] s, int o, long start) {
        return s[o] == start ? s[o + 1] : 0;
    }

    @Override
    public long waitMicros(long[] s, int o, Object[] logs, int l, long now, long cost) {
        if (cost > limit) {
            return NEVER;
        }
        long start = start(s, o, now);
        return count(s, o, start) + cost <= limit ? 0 : start + window - now;
    }

    @Override
    public void consume(long[] s, int o, Object[] logs, int l, long now, long cost) {
        long start = start(s, o, now);
        s[o + 1] = count(s, o, start) + cost;
        s[o] = start;
    }

    @Override
    public long remaining(long[] s, int o, Object[] logs, int l, long now) {
        return limit - count(s, o, start(s, o, now));
    }

    @Override
    public long resetAfterMicros(long[] s, int o, Object[] logs, int l, long now) {
        long start = start(s, o, now);
        return count(s, o, start) == 0 ? 0 : start + window - now;
    }

    @Override
    public long forgetAtMicros(long[] s, int o, Object[] logs, int l) {
        return s[o + 1] == 0 ? 0 : s[o] + window;
    }

    @Override
    public Policy policy() {
        return policy;
    }

    @Override
    public int words() {
        return 2;
    }
}
