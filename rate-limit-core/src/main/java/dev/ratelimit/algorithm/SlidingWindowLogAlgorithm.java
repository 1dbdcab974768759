package dev.ratelimit.algorithm;

import dev.ratelimit.Durations;
import dev.ratelimit.Policy;
import dev.ratelimit.SlidingWindowLog;

/**
 * Sliding window log: {@code logs[l]} is a {@link TimestampLog} with one entry per admitted unit.
 * An entry stamped {@code t} counts while {@code now < t + W}. A request of cost k passes when
 * {@code live + k <= limit}; otherwise it waits until the {@code (live + k - limit)}-th oldest live
 * entry leaves the window.
 */
final class SlidingWindowLogAlgorithm implements Algorithm {
    private final SlidingWindowLog policy;
    private final long limit;
    private final long window;

    SlidingWindowLogAlgorithm(SlidingWindowLog policy) {
        this.policy = policy;
        this.limit = policy.limit();
        this.window = Durations.toMicros(policy.window());
    }

    private static TimestampLog log(Object[] logs, int l) {
        return (TimestampLog) logs[l];
    }

    @Override
    public long waitMicros(long[] s, int o, Object[] logs, int l, long now, long cost) {
        if (cost > limit) {
            return NEVER;
        }
        TimestampLog log = log(logs, l);
        if (log == null) {
            return 0;
        }
        int first = log.firstAfter(now - window);
        long live = log.size() - first;
        if (live + cost <= limit) {
            return 0;
        }
        long mustLeave = live + cost - limit;
        return log.get(first + (int) mustLeave - 1) + window - now;
    }

    @Override
    public void consume(long[] s, int o, Object[] logs, int l, long now, long cost) {
        TimestampLog log = log(logs, l);
        if (log == null) {
            log = new TimestampLog((int) limit);
            logs[l] = log;
        }
        log.dropOldest(log.firstAfter(now - window));
        long stamp = log.size() == 0 ? now : Math.max(now, log.newest());
        log.append(stamp, (int) cost);
    }

    @Override
    public long remaining(long[] s, int o, Object[] logs, int l, long now) {
        TimestampLog log = log(logs, l);
        return log == null ? limit : limit - (log.size() - log.firstAfter(now - window));
    }

    @Override
    public long resetAfterMicros(long[] s, int o, Object[] logs, int l, long now) {
        TimestampLog log = log(logs, l);
        if (log == null || log.size() == 0) {
            return 0;
        }
        return Math.max(0, log.newest() + window - now);
    }

    @Override
    public long forgetAtMicros(long[] s, int o, Object[] logs, int l) {
        TimestampLog log = log(logs, l);
        return log == null || log.size() == 0 ? 0 : log.newest() + window;
    }

    @Override
    public Policy policy() {
        return policy;
    }

    @Override
    public int words() {
        return 0;
    }

    @Override
    public boolean keepsLog() {
        return true;
    }
}
