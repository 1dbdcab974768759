package dev.ratelimit.example.limits;

import dev.ratelimit.FixedWindow;
import dev.ratelimit.Gcra;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.SlidingWindowCounter;
import dev.ratelimit.SlidingWindowLog;
import dev.ratelimit.TokenBucket;
import dev.ratelimit.config.DurationFormat;

import java.util.stream.Collectors;

/**
 * One-line descriptions of policies and limits for people, e.g.
 * {@code token bucket 10, +1/1s} or {@code fixed window 5/1m + sliding log 100/1h}.
 */
public final class PolicyText {
    private PolicyText() {
    }

    /** {@code limit}'s policies, joined by {@code " + "} (a composite needs all of them). */
    public static String describe(Limit limit) {
        return limit.policies().stream().map(PolicyText::describe).collect(Collectors.joining(" + "));
    }

    /** One policy, e.g. {@code sliding counter 100/1h}. */
    public static String describe(Policy policy) {
        if (policy instanceof TokenBucket b) {
            return "token bucket " + b.capacity() + ", +" + b.refillTokens() + "/" + DurationFormat.format(b.refillPeriod());
        }
        if (policy instanceof FixedWindow w) {
            return "fixed window " + w.limit() + "/" + DurationFormat.format(w.window());
        }
        if (policy instanceof SlidingWindowLog l) {
            return "sliding log " + l.limit() + "/" + DurationFormat.format(l.window());
        }
        if (policy instanceof SlidingWindowCounter c) {
            return "sliding counter " + c.limit() + "/" + DurationFormat.format(c.window());
        }
        Gcra g = (Gcra) policy;
        return "gcra " + g.rate() + "/" + DurationFormat.format(g.period()) + ", burst " + g.burst();
    }
}
