package dev.ratelimit.reliability;

import dev.ratelimit.FixedWindow;
import dev.ratelimit.Gcra;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.SlidingWindowCounter;
import dev.ratelimit.SlidingWindowLog;
import dev.ratelimit.TokenBucket;
import dev.ratelimit.example.limits.AdmissionBound;

import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * What the admissions of one key may be, checked from the client's side. A decision Redis made for a
 * request lies between the request's send and answer times (both read from the wall clock, as Redis
 * {@code TIME} is), so an admission is <em>certainly</em> inside an interval when its whole
 * [sent, answered] span is, widened by {@link #SKEW} for the clock slewing between reads. Each check
 * counts only certain admissions, so it cannot fail a correct limiter, and any count above the
 * policy's promise is proof of over-admission:
 * <ul>
 *   <li>fixed window and sliding window counter: at most {@code limit} in any epoch-aligned window;</li>
 *   <li>sliding window log: at most {@code limit} in any interval of one window's length;</li>
 *   <li>token bucket and GCRA: at most {@code capacity + floor(rate * L)} in any interval of length {@code L};</li>
 *   <li>every policy, over the whole run: {@link AdmissionBound#maxRequests}.</li>
 * </ul>
 */
final class Bounds {
    /** Allowance for the wall clock's adjustment between two reads on one host. */
    static final long SKEW = 5_000;

    private Bounds() {
    }

    /** The whole-run bound of {@code limit} for the admissions among {@code exchanges}. */
    static long wholeRun(Limit limit, List<Exchange> exchanges) {
        long first = exchanges.stream().mapToLong(Exchange::sentMicros).min().orElseThrow();
        long last = exchanges.stream().mapToLong(Exchange::answeredMicros).max().orElseThrow();
        return AdmissionBound.maxRequests(limit, 1, first, last, Duration.ofNanos(SKEW * 1_000));
    }

    /** One policy's strict check: the worst certain count and what the policy allows there. */
    record Check(String what, long worst, long allowed) {
        boolean holds() {
            return worst <= allowed;
        }

        @Override
        public String toString() {
            return what + ": " + worst + " <= " + allowed + (holds() ? "" : " VIOLATED");
        }
    }

    /** The strict check of {@code policy} over {@code admitted} (admissions of one key, from every instance). */
    static Check check(Policy policy, List<Exchange> admitted) {
        if (policy instanceof TokenBucket b) {
            long excess = worstRateExcess(admitted, b.capacity(), b.refillTokens(), micros(b.refillPeriod()));
            return new Check("most over capacity + rate*L in any interval", excess, 0);
        }
        if (policy instanceof Gcra g) {
            long excess = worstRateExcess(admitted, g.burst(), g.rate(), micros(g.period()));
            return new Check("most over burst + rate*L in any interval", excess, 0);
        }
        if (policy instanceof SlidingWindowLog l) {
            return new Check("most in any " + l.window().toMillis() + " ms interval", mostInAnyWindow(admitted, micros(l.window())), l.limit());
        }
        if (policy instanceof FixedWindow || policy instanceof SlidingWindowCounter) {
            return new Check("most in one aligned " + policy.window().toMillis() + " ms window",
                    mostInAlignedWindow(admitted, micros(policy.window())), policy.limit());
        }
        throw new IllegalArgumentException("policy: unknown type " + policy);
    }

    /** The most admissions certainly decided inside one epoch-aligned window of {@code window} µs. */
    static long mostInAlignedWindow(List<Exchange> admitted, long window) {
        java.util.Map<Long, Long> perWindow = new java.util.HashMap<>();
        for (Exchange e : admitted) {
            long from = Math.floorDiv(e.sentMicros() - SKEW, window);
            long to = Math.floorDiv(e.answeredMicros() + SKEW, window);
            if (from == to) {
                perWindow.merge(from, 1L, Long::sum);
            }
        }
        return perWindow.values().stream().mapToLong(Long::longValue).max().orElse(0);
    }

    /** The most admissions certainly decided inside some interval {@code [a, a + window)}. */
    static long mostInAnyWindow(List<Exchange> admitted, long window) {
        Exchange[] bySent = admitted.toArray(new Exchange[0]);
        Arrays.sort(bySent, Comparator.comparingLong(Exchange::sentMicros));
        long most = 0;
        for (int i = 0; i < bySent.length; i++) {
            long start = bySent[i].sentMicros() - SKEW;
            long count = 0;
            for (int j = i; j < bySent.length; j++) {
                if (bySent[j].answeredMicros() + SKEW < start + window) {
                    count++;
                }
            }
            most = Math.max(most, count);
        }
        return most;
    }

    /**
     * The most by which admissions certainly inside some interval exceed {@code capacity + floor(tokens * L / period)}
     * for the interval's length {@code L}; at most 0 when the bucket kept its promise. The intervals
     * tried start at a send and end at an answer, which is where a violation would be largest.
     */
    static long worstRateExcess(List<Exchange> admitted, long capacity, long tokens, long period) {
        Exchange[] bySent = admitted.toArray(new Exchange[0]);
        Arrays.sort(bySent, Comparator.comparingLong(Exchange::sentMicros));
        long worst = Long.MIN_VALUE;
        for (int i = 0; i < bySent.length; i++) {
            long start = bySent[i].sentMicros() - SKEW;
            long[] ends = new long[bySent.length - i];
            for (int j = i; j < bySent.length; j++) {
                ends[j - i] = bySent[j].answeredMicros() + SKEW;
            }
            Arrays.sort(ends);
            for (int k = 0; k < ends.length; k++) {
                long allowed = capacity + Math.multiplyExact(ends[k] - start, tokens) / period;
                worst = Math.max(worst, (k + 1) - allowed);
            }
        }
        return worst == Long.MIN_VALUE ? 0 : worst;
    }

    private static long micros(Duration d) {
        return d.toNanos() / 1_000;
    }
}
