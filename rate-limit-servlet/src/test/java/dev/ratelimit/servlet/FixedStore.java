package dev.ratelimit.servlet;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.RateLimitStore;
import dev.ratelimit.RateLimiter;

import java.util.function.Function;

/**
 * A store whose every decision comes from a function of the limit (or an exception it throws): the
 * narrow seam for outcomes the in-memory store never produces (fail-open, fail-closed, a cost no limit
 * allows, a crash).
 */
final class FixedStore implements RateLimitStore {
    private final Function<Limit, Decision> decide;
    int binds;

    FixedStore(Function<Limit, Decision> decide) {
        this.decide = decide;
    }

    @Override
    public RateLimiter limiter(Limit limit) {
        binds++;
        return new RateLimiter() {
            @Override
            public Limit limit() {
                return limit;
            }

            @Override
            public Decision tryAcquire(String key, long cost) {
                return decide.apply(limit);
            }
        };
    }
}
