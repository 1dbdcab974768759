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

import java.util.concurrent.TimeUnit;

/**
 * Our token bucket's decisions per second on a local 3-master Redis Cluster that each fork starts
 * for itself, with concurrent decisions pipelined per master (the default) and one by one
 * ({@code pipelining(false)}, what every Cluster call did before 2026-12-04). Keys as in
 * {@link RedisBenchmark}: 100,000 clients drawn uniformly, spread over the masters by their slots;
 * the {@code rejected} counter must stay at zero. Not part of the published run.
 *
 * <pre>
 * mvn -B -q -pl rate-limit-bench -am package -DskipTests
 * for t in 4 16 64; do java -jar rate-limit-bench/target/benchmarks.jar RedisClusterBenchmark -t $t; done
 * </pre>
 * Needs {@code redis-server} 7 on the PATH (or {@code REDIS_SERVER=/path/to/redis-server}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"})
public class RedisClusterBenchmark {
    /** Masters, on the same cores as the clients. */
    static final int MASTERS = 3;

    @Param({"OURS_TOKEN_BUCKET", "OURS_TOKEN_BUCKET_UNPIPELINED"})
    public RedisContenderKind contender;

    private RedisClusterServers cluster;
    private RedisContender limiter;
    private int[] draws;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        if (contender != RedisContenderKind.OURS_TOKEN_BUCKET && contender != RedisContenderKind.OURS_TOKEN_BUCKET_UNPIPELINED) {
            throw new IllegalArgumentException("contender: only OURS_TOKEN_BUCKET and OURS_TOKEN_BUCKET_UNPIPELINED run on a cluster, not " + contender);
        }
        cluster = RedisClusterServers.start(MASTERS);
        try {
            limiter = new OursRedisContender(cluster.url(), contender.policy(), dev.ratelimit.bench.memory.ContenderKind.PRESPEND,
                    true, contender == RedisContenderKind.OURS_TOKEN_BUCKET);
            draws = KeyShape.UNIFORM_100K.draws(42);
            RedisBenchmark.prepareAll(limiter, KeyShape.UNIFORM_100K, contender);
        } catch (Exception | Error e) {
            tearDown(); // JMH skips the tear-down of a failed set-up
            throw e;
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (limiter != null) {
            limiter.close();
        }
        if (cluster != null) {
            cluster.close();
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
