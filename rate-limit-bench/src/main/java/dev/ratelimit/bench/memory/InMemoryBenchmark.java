package dev.ratelimit.bench.memory;

import dev.ratelimit.bench.Cursor;
import dev.ratelimit.bench.KeyShape;
import dev.ratelimit.bench.Verdicts;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Per-key decisions per second in one JVM, including the key lookup: ours (each algorithm, through
 * {@code MemoryStore} and {@code RateLimiter.tryAcquire}) against Bucket4j, Guava and Resilience4j
 * limiters held per key in a Caffeine cache, and the floor, a bare {@code ConcurrentHashMap.get}.
 * Every key is tracked before the run (see {@link ContenderKind} for the equivalent limits and why
 * they keep decisions allowed and state live); each decision draws its key from a pre-drawn
 * {@link KeyShape} sequence. A fork runs one contender, so its call site stays monomorphic.
 *
 * <p>Forks pre-touch their heap ({@code -XX:+AlwaysPreTouch}): without it, the first pass of the
 * allocation pointer over never-used heap pages takes a page fault per page, and on this project's
 * (virtualised) benchmark machine those faults made every allocating contender look 3-6x slower and
 * alike, burying the difference being measured.
 *
 * <p>Allocation per decision comes from {@code -prof gc} ({@code gc.alloc.rate.norm}); the
 * {@code rejected} counter (decisions per second that were rejected) shows any contender whose
 * decisions are not all allowed.
 *
 * <pre>
 * mvn -B -q -pl rate-limit-bench -am package -DskipTests
 * java -jar rate-limit-bench/target/benchmarks.jar InMemoryBenchmark -t 1 -prof gc
 * java -jar rate-limit-bench/target/benchmarks.jar InMemoryBenchmark -t 2 -prof gc -p keys=PREGENERATED
 * # one combination, quickly:
 * java -jar rate-limit-bench/target/benchmarks.jar InMemoryBenchmark -f 1 -wi 1 -w 1s -i 1 -r 1s \
 *     -p contender=OURS_TOKEN_BUCKET -p shape=UNIFORM_100K -p keys=PREGENERATED
 * </pre>
 * {@code rate-limit-bench/run-benchmarks.sh} runs the whole matrix and writes {@code BENCHMARKS.md}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch"})
public class InMemoryBenchmark {

    @Param({"OURS_TOKEN_BUCKET", "OURS_FIXED_WINDOW", "OURS_SLIDING_WINDOW_LOG", "OURS_SLIDING_WINDOW_COUNTER",
            "OURS_GCRA", "BUCKET4J", "GUAVA", "RESILIENCE4J", "CHM_GET_FLOOR"})
    public ContenderKind contender;

    @Param({"HOT_1", "UNIFORM_100K", "UNIFORM_1M", "ZIPF_1M"})
    public KeyShape shape;

    @Param({"PREGENERATED", "FRESH"})
    public KeyMode keys;

    private Contender limiter;
    private String[] keyStrings;
    private int[] draws;
    private boolean fresh;

    @Setup(Level.Trial)
    public void setUp() {
        keyStrings = shape.keyStrings();
        draws = shape.draws(42);
        fresh = keys == KeyMode.FRESH;
        limiter = contender.create(shape.keys());
        for (String key : keyStrings) {
            limiter.prepare(key);
        }
        for (String key : keyStrings) {
            if (!limiter.allowed(limiter.decide(key)) && contender != ContenderKind.OURS_SLIDING_WINDOW_LOG) {
                throw new IllegalStateException(contender + " rejected " + key + " right after preparing it:"
                        + " the benchmark's limits no longer keep every decision allowed");
            }
        }
    }

    @Benchmark
    public Object decide(Cursor cursor, Verdicts verdicts) {
        int k = cursor.next(draws);
        String key = fresh ? cursor.freshKey(k) : keyStrings[k];
        Object result = limiter.decide(key);
        if (!limiter.allowed(result)) {
            verdicts.rejected++;
        }
        return result;
    }
}
