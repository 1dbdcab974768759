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
 * least 1. A refill or emission rate is multiplied by the share too: the token count is scaled when
 * that leaves at least one token, otherwise the period is stretched (one token per
 * {@code period / (tokens * share)}), so 1 per second at a share of 1/4 becomes 1 per 4 seconds.
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
            long tokens = (long) Math.floor(p.refillTokens() * share);
            try {
                return tokens >= 1 ? new TokenBucket(capacity, tokens, p.refillPeriod())
                        : new TokenBucket(capacity, 1, stretch(p.refillPeriod(), p.refillTokens() * share));
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
            long rate = (long) Math.floor(p.rate() * share);
            try {
                return rate >= 1 ? new Gcra(rate, p.period(), burst) : new Gcra(1, stretch(p.period(), p.rate() * share), burst);
            } catch (InvalidConfigurationException tooSlowForExactArithmetic) {
                return new Gcra(p.rate(), p.period(), burst);
            }
        }
        throw new IllegalArgumentException("policy: unknown type " + policy.getClass().getName());
    }

    private static long count(long value, double share) {
        return Math.max(1, (long) Math.floor(value * share));
    }

    /** The period over which one token comes at {@code tokens} (< 1) per {@code period}, capped at the longest period. */
    private static Duration stretch(Duration period, double tokens) {
        double micros = Math.ceil(Durations.toMicros(period) / tokens);
        long capped = (long) Math.min(micros, Durations.toMicros(Durations.MAX));
        return Durations.ofMicros(capped);
    }
}
