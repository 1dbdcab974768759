package dev.ratelimit.bench.redis;

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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Decisions per second against one local {@code redis-server} that each fork starts for itself on a
 * free port (so every contender starts from an empty server): ours (each algorithm, one script call
 * per decision: FCALL on Redis 7, EVALSHA before) against Bucket4j's Jedis proxy manager and the ceiling, an EVALSHA of {@code return 1}
 * on the same kind of pooled client. Keys are drawn uniformly from 100,000 clients, tracked before
 * the run, and built per request as a filter does. Client threads come from {@code -t}; the
 * {@code rejected} counter (rejected or not decided by Redis) must stay at zero.
 *
 * <pre>
 * mvn -B -q -pl rate-limit-bench -am package -DskipTests
 * for t in 1 4 16; do java -jar rate-limit-bench/target/benchmarks.jar RedisBenchmark -t $t; done
 * </pre>
 * Needs {@code redis-server} on the PATH (or {@code REDIS_SERVER=/path/to/redis-server}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"})
public class RedisBenchmark {

    @Param({"OURS_TOKEN_BUCKET", "OURS_FIXED_WINDOW", "OURS_SLIDING_WINDOW_LOG", "OURS_SLIDING_WINDOW_COUNTER",
            "OURS_GCRA", "OURS_TOKEN_BUCKET_UNPIPELINED", "BUCKET4J", "JEDIS_EVALSHA_RETURN_1"})
    public RedisContenderKind contender;

    @Param({"UNIFORM_100K"})
    public KeyShape shape;

    private RedisServer server;
    private RedisContender limiter;
    private int[] draws;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        server = RedisServer.start();
        try {
            limiter = contender.create(server.port(), true);
            draws = shape.draws(42);
            prepareAll(limiter, shape, contender);
        } catch (Exception | Error e) {
            // JMH skips the tear-down of a failed set-up: stop the server here, or it outlives the fork.
            tearDown();
            throw e;
        }
    }

    /** Tracks every key of {@code shape}, over a few connections at once (one at a time would take seconds). */
    static void prepareAll(RedisContender limiter, KeyShape shape, RedisContenderKind contender) throws Exception {
        int threads = 8;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            Future<?>[] parts = new Future<?>[threads];
            for (int t = 0; t < threads; t++) {
                int first = t;
                parts[t] = pool.submit(() -> {
                    for (int i = first; i < shape.keys(); i += threads) {
                        limiter.prepare(KeyShape.PREFIX + KeyShape.rawKey(i));
                    }
                });
            }
            for (Future<?> part : parts) {
                part.get();
            }
        } finally {
            pool.shutdown();
        }
        String probe = KeyShape.PREFIX + KeyShape.rawKey(0);
        if (!limiter.allowed(limiter.decide(probe))) {
            throw new IllegalStateException(contender + " rejected " + probe + " right after preparing it");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        if (limiter != null) {
            limiter.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Benchmark
    public Object decide(Cursor cursor, Verdicts verdicts) {
        Object result = limiter.decide(cursor.freshKey(cursor.next(draws)));
        if (!limiter.allowed(result)) {
            verdicts.rejected++;
        }
        return result;
    }
}
