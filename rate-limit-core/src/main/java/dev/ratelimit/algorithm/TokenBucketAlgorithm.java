package dev.ratelimit.algorithm;

import dev.ratelimit.Exact;
import dev.ratelimit.Policy;
import dev.ratelimit.TokenBucket;

/**
 * Token bucket in exact units: one token is {@code unit} units and {@code rate} units drip in per
 * µs. State: {@code s[o]} = units missing from a full bucket (0 = full), {@code s[o+1]} = when that
 * was last computed.
 */
final class TokenBucketAlgorithm implements Algorithm {
    private final TokenBucket policy;
    private final long capacity;
    private final long unit;
    private final long rate;
    private final long full;

    TokenBucketAlgorithm(TokenBucket policy) {
        this.policy = policy;
        this.capacity = policy.capacity();
        this.unit = policy.unitsPerToken();
        this.rate = policy.refillUnitsPerMicro();
        this.full = capacity * unit;
    }

    /** Missing units at {@code now}, after the refill since the last update. */
    private long deficit(long[] s, int o, long now) {
        long deficit = s[o];
        if (deficit == 0) {
            return 0;
        }
        long elapsed = now - s[o + 1];
        if (elapsed <= 0) {
            return deficit;
        }
        // Compare before multiplying: elapsed * rate may not fit in 2^53 after a long idle time.
        return elapsed >= Exact.ceilDiv(deficit, rate) ? 0 : deficit - elapsed * rate;
    }

    @Override
    public void refresh(long[] s, int o, Object[] logs, int l, long now) {
        if (s[o] != 0 && now > s[o + 1]) {
            s[o] = deficit(s, o, now);
            s[o + 1] = now;
        }
    }

    @Override
    public long waitMicros(long[] s, int o, Object[] logs, int l, long now, long cost) {
        if (cost > capacity) {
            return NEVER;
        }
        long missing = deficit(s, o, now) + cost * unit - full;
        return missing <= 0 ? 0 : behind(s, o, now) + Exact.ceilDiv(missing, rate);
    }

    /**
     * How far the clock stands behind the last update (0 normally): nothing refills until it is back
     * there, so every wait starts after it.
     */
    private static long behind(long[] s, int o, long now) {
        return s[o] == 0 ? 0 : Math.max(0, s[o + 1] - now);
    }

    @Override
    public void consume(long[] s, int o, Object[] logs, int l, long now, long cost) {
        s[o] = deficit(s, o, now) + cost * unit;
        s[o + 1] = Math.max(now, s[o + 1]);
    }

    @Override
    public long remaining(long[] s, int o, Object[] logs, int l, long now) {
        return Math.max(0, full - deficit(s, o, now)) / unit;
    }

    @Override
    public long resetAfterMicros(long[] s, int o, Object[] logs, int l, long now) {
        long deficit = deficit(s, o, now);
        return behind(s, o, now) + (rate == 1 ? deficit : Exact.ceilDiv(deficit, rate));
    }

    @Override
    public long forgetAtMicros(long[] s, int o, Object[] logs, int l) {
        return s[o] == 0 ? 0 : s[o + 1] + Exact.ceilDiv(s[o], rate);
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
