package dev.ratelimit.algorithm;

import dev.ratelimit.Exact;
import dev.ratelimit.Gcra;
import dev.ratelimit.Policy;

/**
 * GCRA with an exact emission interval {@code T = interval / n} µs. State: the theoretical arrival
 * time TAT as whole µs {@code s[o]} plus a remainder {@code s[o+1]} in 1/n µs. A request of cost k
 * passes at {@code now} when {@code max(TAT, now) + k*T - now <= burst*T}. All comparisons are on
 * {@code D = max(0, TAT - now) * n}, which is at most {@code burst * interval < 2^53}.
 */
final class GcraAlgorithm implements Algorithm {
    private final Gcra policy;
    private final long burst;
    private final long interval;
    private final long n;
    private final long tolerance;

    GcraAlgorithm(Gcra policy) {
        this.policy = policy;
        this.burst = policy.burst();
        this.interval = policy.intervalUnits();
        this.n = policy.ratePerUnit();
        this.tolerance = burst * interval;
    }

    /** {@code max(0, TAT - now)} in units of 1/n µs; only called when that is at most the tolerance. */
    private long backlog(long[] s, int o, long now) {
        long tat = s[o];
        if (tat < now) {
            return 0;
        }
        return (tat - now) * n + s[o + 1];
    }

    /**
     * Whether TAT is further ahead of {@code now} than a full burst, which only a clock that went back
     * makes possible: then {@code (TAT - now) * n} may not fit in a long, and nothing can pass.
     */
    private boolean beyondTolerance(long[] s, int o, long now) {
        return s[o] - now > tolerance / n;
    }

    @Override
    public long waitMicros(long[] s, int o, Object[] logs, int l, long now, long cost) {
        if (cost > burst) {
            return NEVER;
        }
        if (beyondTolerance(s, o, now)) {
            // ceil(((TAT - now) * n + rem + cost * interval - tolerance) / n), without the product
            return s[o] - now + Exact.ceilDiv(s[o + 1] + cost * interval - tolerance, n);
        }
        long over = backlog(s, o, now) + cost * interval - tolerance;
        return over <= 0 ? 0 : Exact.ceilDiv(over, n);
    }

    @Override
    public void consume(long[] s, int o, Object[] logs, int l, long now, long cost) {
        long next = backlog(s, o, now) + cost * interval;
        s[o] = now + next / n;
        s[o + 1] = next % n;
    }

    @Override
    public long remaining(long[] s, int o, Object[] logs, int l, long now) {
        return beyondTolerance(s, o, now) ? 0 : Math.max(0, tolerance - backlog(s, o, now)) / interval;
    }

    @Override
    public long resetAfterMicros(long[] s, int o, Object[] logs, int l, long now) {
        if (beyondTolerance(s, o, now)) {
            return s[o] - now + (s[o + 1] > 0 ? 1 : 0);
        }
        return Exact.ceilDiv(backlog(s, o, now), n);
    }

    @Override
    public long forgetAtMicros(long[] s, int o, Object[] logs, int l) {
        if (s[o] == 0 && s[o + 1] == 0) {
            return 0;
        }
        return s[o] + (s[o + 1] > 0 ? 1 : 0);
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
