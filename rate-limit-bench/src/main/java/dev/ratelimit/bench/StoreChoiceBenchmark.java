package dev.ratelimit.bench;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.TokenBucket;
import dev.ratelimit.store.memory.MemoryStore;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The in-memory store's design choice, on numbers: our sharded flat table against the maps a
 * hand-rolled limiter would use, each doing "look the key up, then one CAS on its value"
 * (ConcurrentHashMap, Caffeine bounded by size, Caffeine bounded by size with expireAfterAccess).
 *
 * <pre>
 * mvn -B -q -pl rate-limit-bench -am package -DskipTests
 * java -jar rate-limit-bench/target/benchmarks.jar StoreChoiceBenchmark
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class StoreChoiceBenchmark {

    @Param({"UNIFORM_100K", "UNIFORM_1M"})
    public KeyShape shape;

    String[] keys;
    int[] draws;
    RateLimiter ours;
    ConcurrentHashMap<String, AtomicLong> map;
    Cache<String, AtomicLong> caffeineSize;
    Cache<String, AtomicLong> caffeineExpiring;

    @Setup
    public void setUp() {
        keys = shape.keyStrings();
        draws = shape.draws(42);
        ours = MemoryStore.builder().maxKeysPerLimit(Math.max(keys.length, 1)).build()
                // A deep bucket with a slow refill: every key stays tracked (never fresh again) during the run,
                // so this measures the steady-state lookup and decision, not insert/sweep churn.
                .limiter(Limit.of("bench", new TokenBucket(1_000_000, 1, Duration.ofSeconds(1))));
        map = new ConcurrentHashMap<>();
        caffeineSize = Caffeine.newBuilder().maximumSize(keys.length).build();
        caffeineExpiring = Caffeine.newBuilder().maximumSize(keys.length).expireAfterAccess(Duration.ofHours(1)).build();
        for (String key : keys) {
            ours.tryAcquire(key);
            map.put(key, new AtomicLong());
            caffeineSize.put(key, new AtomicLong());
            caffeineExpiring.put(key, new AtomicLong());
        }
    }

    /** Per-thread position in the pre-drawn key sequence. */
    @State(Scope.Thread)
    public static class Cursor {
        int i = (int) Thread.currentThread().getId() * 7919;

        int next(int[] draws) {
            return draws[(i++) & (draws.length - 1)];
        }
    }

    @Benchmark
    public Decision ours(Cursor c) {
        return ours.tryAcquire(keys[c.next(draws)]);
    }

    @Benchmark
    public long concurrentHashMapLookupAndCas(Cursor c) {
        AtomicLong v = map.get(keys[c.next(draws)]);
        long old = v.get();
        v.compareAndSet(old, old + 1);
        return old;
    }

    @Benchmark
    public long caffeineMaximumSize(Cursor c) {
        AtomicLong v = caffeineSize.get(keys[c.next(draws)], k -> new AtomicLong());
        long old = v.get();
        v.compareAndSet(old, old + 1);
        return old;
    }

    @Benchmark
    public long caffeineExpireAfterAccess(Cursor c) {
        AtomicLong v = caffeineExpiring.get(keys[c.next(draws)], k -> new AtomicLong());
        long old = v.get();
        v.compareAndSet(old, old + 1);
        return old;
    }
}
