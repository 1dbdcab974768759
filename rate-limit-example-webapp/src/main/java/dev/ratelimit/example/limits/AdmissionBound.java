package dev.ratelimit.example.limits;

import dev.ratelimit.FixedWindow;
import dev.ratelimit.Gcra;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.SlidingWindowCounter;
import dev.ratelimit.SlidingWindowLog;
import dev.ratelimit.TokenBucket;

import java.math.BigInteger;
import java.time.Duration;

/**
 * The most requests a limit may admit for one client key between two instants: what each algorithm
 * promises, so that a load check can prove a deployment keeps the promise (and show that several
 * instances with separate in-memory stores do not). For an interval of length {@code T} starting
 * from a fresh key:
 * <ul>
 *   <li>token bucket: {@code capacity + floor(refillTokens * T / refillPeriod)};</li>
 *   <li>GCRA: {@code burst + floor(rate * T / period)} (the token bucket it is equivalent to);</li>
 *   <li>fixed window and sliding window counter: {@code limit} per epoch-aligned window the interval
 *       touches (the counter's documented bound: never more than {@code limit} inside an aligned
 *       window);</li>
 *   <li>sliding window log: {@code limit * (floor(T / window) + 1)} (at most {@code limit} in any window).</li>
 * </ul>
 * A composite limit admits no more than its tightest policy; a request of cost {@code k} takes
 * {@code k} units. Where the windows fall is a matter of clocks: the interval is widened by a
 * {@code skew} on both sides before counting the aligned windows it touches, so that a checker and a
 * server whose clocks differ by less than the skew agree on the bound. The windowed algorithms are
 * also held to {@code limit} in each single window ({@link #fullestWindow}).
 */
public final class AdmissionBound {
    private AdmissionBound() {
    }

    /**
     * The most requests of cost {@code cost} that {@code limit} admits for one key whose requests were
     * all sent and answered within {@code [startMicros, endMicros]}.
     */
    public static long maxRequests(Limit limit, long cost, long startMicros, long endMicros, Duration skew) {
        if (cost < 1) {
            throw new IllegalArgumentException("cost must be >= 1, was " + cost);
        }
        if (endMicros < startMicros) {
            throw new IllegalArgumentException("endMicros " + endMicros + " is before startMicros " + startMicros);
        }
        long skewMicros = skew.toNanos() / 1_000;
        long units = Long.MAX_VALUE;
        for (Policy policy : limit.policies()) {
            units = Math.min(units, maxUnits(policy, startMicros, endMicros, skewMicros));
        }
        return units / cost;
    }

    /** The most units {@code policy} admits for one key within {@code [start, end]}. */
    static long maxUnits(Policy policy, long start, long end, long skewMicros) {
        long length = end - start;
        if (policy instanceof TokenBucket b) {
            return b.capacity() + scaled(length, b.refillTokens(), micros(b.refillPeriod()));
        }
        if (policy instanceof Gcra g) {
            return g.burst() + scaled(length, g.rate(), micros(g.period()));
        }
        if (policy instanceof SlidingWindowLog l) {
            return l.limit() * (length / micros(l.window()) + 1);
        }
        long window = micros(policy.window());
        long windowsTouched = Math.floorDiv(end + skewMicros, window) - Math.floorDiv(start - skewMicros, window) + 1;
        return policy.limit() * windowsTouched;
    }

    /**
     * Requests a client was admitted somewhere and the most its limit allows there.
     *
     * @param admitted the requests admitted
     * @param bound    the most the limit allows
     */
    public record Count(long admitted, long bound) {
        /** How many more than the bound (negative: how many fewer). */
        public long excess() {
            return admitted - bound;
        }
    }

    /**
     * The fullest epoch-aligned window of the fixed window and sliding window counter policies of
     * {@code limit}, counting only the admissions that certainly fell in it: sent and answered inside
     * it with {@code skew} to spare at both ends. Both algorithms admit at most {@code limit} units in
     * an aligned window whatever the windows around it hold, so such a window catches an excess that
     * the whole run's bound ({@link #maxRequests}, which counts every window the widened run touches
     * as full) can hide. Null when no admission certainly fell in a window of such a policy.
     *
     * @param sends   when each admitted request was sent, in order
     * @param answers when each was answered
     */
    public static Count fullestWindow(Limit limit, long cost, long[] sends, long[] answers, Duration skew) {
        if (cost < 1) {
            throw new IllegalArgumentException("cost must be >= 1, was " + cost);
        }
        if (sends.length != answers.length) {
            throw new IllegalArgumentException(sends.length + " sends but " + answers.length + " answers");
        }
        long skewMicros = skew.toNanos() / 1_000;
        Count fullest = null;
        for (Policy policy : limit.policies()) {
            if (!(policy instanceof FixedWindow || policy instanceof SlidingWindowCounter)) {
                continue;
            }
            long window = micros(policy.window());
            long allowed = policy.limit() / cost;
            long current = Long.MIN_VALUE;
            long count = 0;
            for (int i = 0; i < sends.length; i++) {
                long first = Math.floorDiv(sends[i] - skewMicros, window);
                if (first != Math.floorDiv(answers[i] + skewMicros, window)) {
                    continue;
                }
                // Sends only grow, so the windows admissions certainly fell in do not go back.
                count = first == current ? count + 1 : 1;
                current = first;
                if (fullest == null || count - allowed > fullest.excess()) {
                    fullest = new Count(count, allowed);
                }
            }
        }
        return fullest;
    }

    /**
     * The rate a client can keep up forever, in requests per second: the refill rate of a bucket,
     * {@code limit / window} of a window; the smallest of a composite's.
     */
    public static double sustainedPerSecond(Limit limit, long cost) {
        double rate = Double.MAX_VALUE;
        for (Policy p : limit.policies()) {
            double perSecond;
            if (p instanceof TokenBucket b) {
                perSecond = b.refillTokens() * 1e6 / micros(b.refillPeriod());
            } else if (p instanceof Gcra g) {
                perSecond = g.rate() * 1e6 / micros(g.period());
            } else {
                perSecond = p.limit() * 1e6 / micros(p.window());
            }
            rate = Math.min(rate, perSecond);
        }
        return rate / cost;
    }

    /** How the bound of {@code policy} is computed, for reports: e.g. {@code capacity + rate*T}. */
    public static String formula(Policy policy) {
        if (policy instanceof TokenBucket) {
            return "capacity + rate*T";
        }
        if (policy instanceof Gcra) {
            return "burst + rate*T";
        }
        if (policy instanceof SlidingWindowLog) {
            return "limit * (T/window + 1)";
        }
        return (policy instanceof FixedWindow ? "limit * windows touched" : "limit * aligned windows touched")
                + ", and limit in any one window";
    }

    /** {@code floor(length * perPeriod / period)} without overflow. */
    private static long scaled(long length, long perPeriod, long period) {
        return BigInteger.valueOf(length).multiply(BigInteger.valueOf(perPeriod)).divide(BigInteger.valueOf(period)).longValueExact();
    }

    private static long micros(Duration d) {
        return d.toNanos() / 1_000;
    }
}
