package dev.ratelimit.bench.memory;

import dev.ratelimit.FixedWindow;
import dev.ratelimit.Gcra;
import dev.ratelimit.SlidingWindowCounter;
import dev.ratelimit.SlidingWindowLog;
import dev.ratelimit.TokenBucket;

import java.time.Duration;

/**
 * Every contender of the in-memory benchmarks, configured with equivalent limits.
 *
 * <p>The limits are chosen so that what is measured is the steady-state decision on a tracked key,
 * not the churn of creating and forgetting state:
 * <ul>
 *   <li><b>Bucket-like</b> (our token bucket and GCRA, Bucket4j): capacity {@value #CAPACITY}
 *       tokens refilled at one per second, and {@link Contender#prepare} spends half of it
 *       ({@value #PRESPEND}) on every key before the run. A key then needs 10^9 seconds to be full
 *       again, so our store (which forgets a key once its state is fresh) never drops it, and a hot
 *       key at 50 M decisions/s still has tokens left after 20 s: every decision is an allowed one.</li>
 *   <li><b>Our fixed window</b>: {@value #CAPACITY} per day, half spent up front. A run that crosses
 *       midnight UTC sees the counters start again, which changes nothing measurable.</li>
 *   <li><b>Our sliding window counter</b>: {@value #SWC_LIMIT} per 10 s (limit x window must stay
 *       below 2^53 microseconds for exact arithmetic). Nothing is spent up front; a key is forgotten
 *       only after 20 s without a request, which in the Zipf shape touches the far tail alone.</li>
 *   <li><b>Our sliding window log</b>: {@value #SWL_LIMIT} per hour. Its state is one timestamp per
 *       admitted request, so no limit can keep a hot key allowed for a whole run with bounded memory:
 *       keys that reach the limit are rejected from then on (the report gives the rejected share).</li>
 *   <li><b>Resilience4j</b>: {@value #CAPACITY} permits per one-day cycle, half spent up front.</li>
 *   <li><b>Guava</b>: {@value #GUAVA_RATE} permits per second. Guava has no capacity of its own (it
 *       stores at most one second of its rate), so a rate this high is what makes it allow every
 *       request like the others; its cost per call does not depend on the rate.</li>
 * </ul>
 * Our store and every peer's cache hold at most {@link #maxKeys} keys: a quarter more than the
 * shape's keys, the same headroom for all, so that none evicts a live key during the run (needed
 * when our shards each evicted at their share of the cap; since they share one count it is only
 * kept so that runs compare).
 */
public enum ContenderKind {
    OURS_TOKEN_BUCKET {
        @Override
        Contender create(int keys) {
            return new OursContender(new TokenBucket(CAPACITY, 1, Duration.ofSeconds(1)), maxKeys(keys), PRESPEND);
        }
    },
    OURS_FIXED_WINDOW {
        @Override
        Contender create(int keys) {
            return new OursContender(new FixedWindow(CAPACITY, Duration.ofDays(1)), maxKeys(keys), PRESPEND);
        }
    },
    OURS_SLIDING_WINDOW_LOG {
        @Override
        Contender create(int keys) {
            return new OursContender(new SlidingWindowLog(SWL_LIMIT, Duration.ofHours(1)), maxKeys(keys), 1);
        }
    },
    OURS_SLIDING_WINDOW_COUNTER {
        @Override
        Contender create(int keys) {
            return new OursContender(new SlidingWindowCounter(SWC_LIMIT, Duration.ofSeconds(10)), maxKeys(keys), 1);
        }
    },
    OURS_GCRA {
        @Override
        Contender create(int keys) {
            return new OursContender(new Gcra(1, Duration.ofSeconds(1), CAPACITY), maxKeys(keys), PRESPEND);
        }
    },
    /** Bucket4j answering with a {@code ConsumptionProbe} (remaining tokens, nanos to wait): like for like with our Decision. */
    BUCKET4J {
        @Override
        Contender create(int keys) {
            return new Bucket4jContender(maxKeys(keys), CAPACITY, Duration.ofSeconds(1), PRESPEND, true);
        }
    },
    /** Bucket4j answering with a bare boolean: its cheapest call, for a filter that sends no headers. */
    BUCKET4J_BOOLEAN {
        @Override
        Contender create(int keys) {
            return new Bucket4jContender(maxKeys(keys), CAPACITY, Duration.ofSeconds(1), PRESPEND, false);
        }
    },
    GUAVA {
        @Override
        Contender create(int keys) {
            return new GuavaContender(maxKeys(keys), GUAVA_RATE);
        }
    },
    RESILIENCE4J {
        @Override
        Contender create(int keys) {
            return new Resilience4jContender(maxKeys(keys), (int) CAPACITY, Duration.ofDays(1), (int) PRESPEND);
        }
    },
    /**
     * Not a limiter: the bare map lookup, which no per-key limiter that keeps its keys can beat with
     * pre-generated keys (ours keeps a hash instead, and beats it with fresh keys; see docs/benchmarks.md).
     */
    CHM_GET_FLOOR {
        @Override
        Contender create(int keys) {
            return new MapFloor(keys);
        }
    };

    /** Tokens (or permits, or requests per window) of every bucket-like contender. */
    public static final long CAPACITY = 2_000_000_000L;
    /** What {@link Contender#prepare} spends up front on bucket-like contenders. */
    public static final long PRESPEND = 1_000_000_000L;
    /** Our sliding window counter's limit per 10 s. */
    public static final long SWC_LIMIT = 800_000_000L;
    /** Our sliding window log's limit per hour. */
    public static final long SWL_LIMIT = 1_000L;
    /** Guava's rate, permits per second. */
    public static final double GUAVA_RATE = 2e9;

    /** A new contender for a shape of {@code keys} distinct keys. */
    abstract Contender create(int keys);

    /** The cap on tracked keys given to our store and to every peer's cache: 1.25 x, so that none evicts during a run. */
    static int maxKeys(int keys) {
        return keys + keys / 4 + 64;
    }

    /** Whether this is one of ours. */
    public boolean ours() {
        return name().startsWith("OURS_");
    }

    /** A name for tables: the algorithm for ours, the library and its container for peers. */
    public String label() {
        return switch (this) {
            case OURS_TOKEN_BUCKET -> "ours: token bucket";
            case OURS_FIXED_WINDOW -> "ours: fixed window";
            case OURS_SLIDING_WINDOW_LOG -> "ours: sliding window log";
            case OURS_SLIDING_WINDOW_COUNTER -> "ours: sliding window counter";
            case OURS_GCRA -> "ours: GCRA";
            case BUCKET4J -> "Bucket4j (probe) in Caffeine";
            case BUCKET4J_BOOLEAN -> "Bucket4j (boolean) in Caffeine";
            case GUAVA -> "Guava RateLimiter in Caffeine";
            case RESILIENCE4J -> "Resilience4j AtomicRateLimiter in Caffeine";
            case CHM_GET_FLOOR -> "floor: ConcurrentHashMap.get";
        };
    }
}
