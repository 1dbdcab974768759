package dev.ratelimit.bench.redis;

import dev.ratelimit.FixedWindow;
import dev.ratelimit.Gcra;
import dev.ratelimit.Policy;
import dev.ratelimit.SlidingWindowCounter;
import dev.ratelimit.SlidingWindowLog;
import dev.ratelimit.TokenBucket;

import java.time.Duration;

import static dev.ratelimit.bench.memory.ContenderKind.CAPACITY;
import static dev.ratelimit.bench.memory.ContenderKind.PRESPEND;
import static dev.ratelimit.bench.memory.ContenderKind.SWC_LIMIT;
import static dev.ratelimit.bench.memory.ContenderKind.SWL_LIMIT;

/**
 * Every contender of the Redis benchmarks, with the same limits as the in-memory ones (see
 * {@link dev.ratelimit.bench.memory.ContenderKind}): bucket-like quotas of {@code CAPACITY} tokens
 * at one per second, half spent before the run, so every decision is allowed and no key expires
 * during a run.
 */
public enum RedisContenderKind {
    OURS_TOKEN_BUCKET(new TokenBucket(CAPACITY, 1, Duration.ofSeconds(1)), PRESPEND),
    OURS_FIXED_WINDOW(new FixedWindow(CAPACITY, Duration.ofDays(1)), PRESPEND),
    OURS_SLIDING_WINDOW_LOG(new SlidingWindowLog(SWL_LIMIT, Duration.ofHours(1)), 1),
    OURS_SLIDING_WINDOW_COUNTER(new SlidingWindowCounter(SWC_LIMIT, Duration.ofSeconds(10)), 1),
    OURS_GCRA(new Gcra(1, Duration.ofSeconds(1), CAPACITY), PRESPEND),
    /** Our token bucket with {@code pipelining(false)}: every call on its own connection. */
    OURS_TOKEN_BUCKET_UNPIPELINED(new TokenBucket(CAPACITY, 1, Duration.ofSeconds(1)), PRESPEND),
    /** Bucket4j's Jedis proxy manager (compare-and-swap), same token bucket. */
    BUCKET4J(null, PRESPEND),
    /** Not a limiter: EVALSHA of {@code return 1}, the one-round-trip ceiling. */
    JEDIS_EVALSHA_RETURN_1(null, 0);

    private final Policy policy;
    private final long prespend;

    RedisContenderKind(Policy policy, long prespend) {
        this.policy = policy;
        this.prespend = prespend;
    }

    /** A contender on the server at {@code port}, with our denial cache on or off. */
    RedisContender create(int port, boolean denialCache) {
        return switch (this) {
            case BUCKET4J -> new Bucket4jRedisContender(port, CAPACITY, Duration.ofSeconds(1), prespend);
            case JEDIS_EVALSHA_RETURN_1 -> new EvalshaCeiling(port);
            case OURS_TOKEN_BUCKET_UNPIPELINED -> new OursRedisContender(port, policy, prespend, denialCache, false);
            default -> new OursRedisContender(port, policy, prespend, denialCache, true);
        };
    }

    /** Whether its cost per decision differs from another contender's (a variant of transport only does not). */
    boolean ownCosts() {
        return this != JEDIS_EVALSHA_RETURN_1 && this != OURS_TOKEN_BUCKET_UNPIPELINED;
    }

    /** Our policy, or {@code null} for the peers. */
    Policy policy() {
        return policy;
    }

    /** A name for tables. */
    public String label() {
        return switch (this) {
            case OURS_TOKEN_BUCKET -> "ours: token bucket";
            case OURS_FIXED_WINDOW -> "ours: fixed window";
            case OURS_SLIDING_WINDOW_LOG -> "ours: sliding window log";
            case OURS_SLIDING_WINDOW_COUNTER -> "ours: sliding window counter";
            case OURS_GCRA -> "ours: GCRA";
            case OURS_TOKEN_BUCKET_UNPIPELINED -> "ours: token bucket, pipelining off";
            case BUCKET4J -> "Bucket4j Jedis proxy manager (CAS)";
            case JEDIS_EVALSHA_RETURN_1 -> "ceiling: Jedis EVALSHA return 1";
        };
    }
}
