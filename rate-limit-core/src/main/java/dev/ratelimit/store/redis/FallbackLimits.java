package dev.ratelimit.store.redis;

import dev.ratelimit.Durations;
import dev.ratelimit.FixedWindow;
import dev.ratelimit.Gcra;
import dev.ratelimit.InvalidConfigurationException;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.SlidingWindowCounter;
import dev.ratelimit.SlidingWindowLog;
import dev.ratelimit.TokenBucket;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The limits the local fallback enforces while Redis is unavailable: this instance's share of each.
 * Counts (capacity, window limit, burst) are multiplied by the share and rounded down, but kept at
 * least 1. A refill or emission rate is multiplied by the share exactly: the token count is scaled
 * when that leaves a whole number of tokens (10 per second at 1/2 becomes 5 per second), otherwise
 * the period is stretched to {@code period / share} (3 per second at 1/2 becomes 3 per 2 seconds,
 * 1 per second at 1/4 becomes 1 per 4 seconds).
 * Where the scaled rate would make a policy its validation refuses (a bucket slower to refill
 * than the longest allowed, or beyond exact arithmetic), the count is scaled and the rate kept:
 * always valid, since it holds less for no longer than the policy it comes from.
 */
final class FallbackLimits {
    private FallbackLimits() {
    }

    static Limit scale(Limit limit, double share) {
        if (share == 1.0) {
            return limit;
        }
        List<Policy> scaled = new ArrayList<>();
        for (Policy policy : limit.policies()) {
            scaled.add(scale(policy, share));
        }
        return new Limit(limit.name(), scaled);
    }

    static Policy scale(Policy policy, double share) {
        if (policy instanceof TokenBucket p) {
            long capacity = count(p.capacity(), share);
            long tokens = whole(p.refillTokens() * share);
            try {
                return tokens >= 1 ? new TokenBucket(capacity, tokens, p.refillPeriod())
                        : new TokenBucket(capacity, p.refillTokens(), stretch(p.refillPeriod(), share));
            } catch (InvalidConfigurationException tooSlowForExactArithmetic) {
                return new TokenBucket(capacity, p.refillTokens(), p.refillPeriod());
            }
        } else if (policy instanceof FixedWindow p) {
            return new FixedWindow(count(p.limit(), share), p.window());
        } else if (policy instanceof SlidingWindowLog p) {
            return new SlidingWindowLog(count(p.limit(), share), p.window());
        } else if (policy instanceof SlidingWindowCounter p) {
            return new SlidingWindowCounter(count(p.limit(), share), p.window());
        } else if (policy instanceof Gcra p) {
            long burst = count(p.burst(), share);
            long rate = whole(p.rate() * share);
            try {
                return rate >= 1 ? new Gcra(rate, p.period(), burst) : new Gcra(p.rate(), stretch(p.period(), share), burst);
            } catch (InvalidConfigurationException tooSlowForExactArithmetic) {
                return new Gcra(p.rate(), p.period(), burst);
            }
        }
        throw new IllegalArgumentException("policy: unknown type " + policy.getClass().getName());
    }

    /**
     * {@code value * share} rounded down, at least 1; a product within rounding error of a whole number
     * is that number (90 at 0.7 is 63, although the double product is 62.99999999999999).
     */
    private static long count(long value, double share) {
        double scaled = value * share;
        long rounded = Math.round(scaled);
        return Math.max(1, isRoundingErrorFrom(scaled, rounded) ? rounded : (long) Math.floor(scaled));
    }

    /**
     * Whether {@code scaled} differs from {@code whole} by no more than the error of a double product
     * of that size (a few units in the last place): never a real fraction, however large the number
     * (3,000,000,001 at 0.5 is 1,500,000,000.5, not 1,500,000,001).
     */
    private static boolean isRoundingErrorFrom(double scaled, long whole) {
        return Math.abs(scaled - whole) <= 4 * Math.ulp(scaled);
    }

    /**
     * {@code scaled} when it is a whole number of at least 1 (10 tokens at a share of 0.5), else 0: a
     * rate such as 1.5 tokens a second is kept exact by stretching its period instead (3 every 2 s),
     * never rounded down (1 a second would lose a third of the share).
     */
    private static long whole(double scaled) {
        long rounded = Math.round(scaled);
        return rounded >= 1 && isRoundingErrorFrom(scaled, rounded) ? rounded : 0;
    }

    /** {@code period / share} (rounded up to whole µs: never faster than the share), capped at the longest period. */
    private static Duration stretch(Duration period, double share) {
        double micros = Math.ceil(Durations.toMicros(period) / share);
        long capped = (long) Math.min(micros, Durations.toMicros(Durations.MAX));
        return Durations.ofMicros(capped);
    }
}
