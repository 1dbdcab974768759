package dev.ratelimit.store.redis;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.store.memory.MemoryStore;
import dev.ratelimit.testing.RedisServer;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random request sequences (time steps from 0 µs to minutes, costs up to just above the limit) get
 * identical decisions from the Redis script and the in-memory store, for every algorithm and a
 * composite. Time comes from a manual clock ({@code timeFromClock}) so both see the same instants.
 * The composite also runs through EVALSHA scripts (the Redis 6.2 path), which hold only the
 * algorithms their limit uses.
 */
class RedisStoreEquivalenceTest {
    private static final long START = Instant.parse("2026-03-02T10:00:00Z").getEpochSecond() * 1_000_000L;
    private static RedisServer redis;
    private static ManualClock clock;
    private static RedisStore store;
    private static RedisStore scriptStore;

    record Step(long advanceMicros, long cost) {
    }

    @BeforeContainer
    static void startRedis() {
        redis = RedisServer.start();
        clock = new ManualClock(START);
        store = RedisStore.builder().url(redis.url()).clock(clock).timeFromClock(true).denialCache(false)
                .readTimeout(Duration.ofSeconds(2)).build();
        String scriptUrl = redis.url();
        if (redis.hasFunctions()) {
            // A user Redis refuses FCALL: the store decides with EVALSHA scripts.
            redis.call("ACL", "SETUSER", "scripts", "on", ">s3cret", "~*", "&*", "+@all", "-fcall", "-function");
            scriptUrl = "redis://scripts:s3cret@127.0.0.1:" + redis.port();
        }
        scriptStore = RedisStore.builder().url(scriptUrl).clock(clock).timeFromClock(true).denialCache(false)
                .readTimeout(Duration.ofSeconds(2)).build();
    }

    @AfterContainer
    static void stopRedis() {
        store.close();
        scriptStore.close();
        redis.close();
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<Long> advance = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(3, Arbitraries.just(0L)),
                net.jqwik.api.Tuple.of(3, Arbitraries.longs().between(1, 2_000)),
                net.jqwik.api.Tuple.of(4, Arbitraries.longs().between(1_000, 3_000_000)),
                net.jqwik.api.Tuple.of(1, Arbitraries.longs().between(3_000_000, 300_000_000)));
        Arbitrary<Long> cost = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(6, Arbitraries.just(1L)),
                net.jqwik.api.Tuple.of(3, Arbitraries.longs().between(2, 11)));
        return Combinators.combine(advance, cost).as(Step::new).list().ofMinSize(1).ofMaxSize(40);
    }

    @Property(tries = 60)
    void tokenBucket(@ForAll @IntRange(min = 1, max = 10) int capacity, @ForAll @IntRange(min = 1, max = 7) int tokens,
                     @ForAll @LongRange(min = 1, max = 3_000_000) long periodMicros,
                     @ForAll @LongRange(min = 0, max = 86_400_000_000L) long offset, @ForAll("steps") List<Step> steps) {
        check(Policy.tokenBucket(capacity, tokens, Duration.ofNanos(periodMicros * 1000)), offset, steps);
    }

    @Property(tries = 60)
    void fixedWindow(@ForAll @IntRange(min = 1, max = 10) int limit, @ForAll @LongRange(min = 1, max = 5_000_000) long windowMicros,
                     @ForAll @LongRange(min = 0, max = 86_400_000_000L) long offset, @ForAll("steps") List<Step> steps) {
        check(Policy.fixedWindow(limit, Duration.ofNanos(windowMicros * 1000)), offset, steps);
    }

    @Property(tries = 60)
    void slidingWindowLog(@ForAll @IntRange(min = 1, max = 10) int limit, @ForAll @LongRange(min = 1, max = 5_000_000) long windowMicros,
                          @ForAll @LongRange(min = 0, max = 86_400_000_000L) long offset, @ForAll("steps") List<Step> steps) {
        check(Policy.slidingWindowLog(limit, Duration.ofNanos(windowMicros * 1000)), offset, steps);
    }

    @Property(tries = 60)
    void slidingWindowCounter(@ForAll @IntRange(min = 1, max = 10) int limit, @ForAll @LongRange(min = 1, max = 5_000_000) long windowMicros,
                              @ForAll @LongRange(min = 0, max = 86_400_000_000L) long offset, @ForAll("steps") List<Step> steps) {
        check(Policy.slidingWindowCounter(limit, Duration.ofNanos(windowMicros * 1000)), offset, steps);
    }

    @Property(tries = 60)
    void gcra(@ForAll @IntRange(min = 1, max = 7) int rate, @ForAll @LongRange(min = 1, max = 3_000_000) long periodMicros,
              @ForAll @IntRange(min = 1, max = 10) int burst,
              @ForAll @LongRange(min = 0, max = 86_400_000_000L) long offset, @ForAll("steps") List<Step> steps) {
        check(Policy.gcra(rate, Duration.ofNanos(periodMicros * 1000), burst), offset, steps);
    }

    @Property(tries = 60)
    void composite(@ForAll @IntRange(min = 1, max = 10) int capacity, @ForAll @IntRange(min = 1, max = 10) int limit,
                   @ForAll @IntRange(min = 1, max = 10) int logLimit,
                   @ForAll @LongRange(min = 0, max = 86_400_000_000L) long offset, @ForAll("steps") List<Step> steps) {
        check(composite(capacity, limit, logLimit), offset, steps, store);
    }

    @Property(tries = 30)
    void compositeThroughScripts(@ForAll @IntRange(min = 1, max = 10) int capacity, @ForAll @IntRange(min = 1, max = 10) int limit,
                                 @ForAll @IntRange(min = 1, max = 10) int logLimit,
                                 @ForAll @LongRange(min = 0, max = 86_400_000_000L) long offset, @ForAll("steps") List<Step> steps) {
        check(composite(capacity, limit, logLimit), offset, steps, scriptStore);
    }

    /**
     * A refusal on a key whose state is stale keeps it, as the in-memory store does: the script used
     * to delete it, so a clock that then stepped back (a failover to a Redis whose clock is behind)
     * found a fresh client and admitted more than the limit. Steps are (µs after a whole second, cost).
     * (Not the token bucket: after a refusal it differs between the stores whenever the clock steps
     * back, as the README says, deleted key or not.)
     */
    @Example
    void aRefusalOfAStaleKeyKeepsItSoAClockSteppingBackAdmitsNoMore() {
        long second = 1_000_000;
        checkAt(Policy.fixedWindow(2, Duration.ofSeconds(1)), new long[][] {{0, 1}, {second, 3}, {second - 1, 2}});
        checkAt(Policy.slidingWindowLog(1, Duration.ofSeconds(1)), new long[][] {{0, 1}, {second, 2}, {second - 1, 1}});
        checkAt(Policy.slidingWindowCounter(1, Duration.ofSeconds(1)), new long[][] {{0, 1}, {2 * second, 2}, {2 * second - 1, 1}});
        checkAt(Policy.gcra(1, Duration.ofSeconds(1), 1), new long[][] {{0, 1}, {second, 2}, {second / 2, 1}});
        checkAt(composite(1, 1, 1), new long[][] {{0, 1}, {5 * second, 20}, {second, 1}});
    }

    private static void checkAt(Limit limit, long[][] steps) {
        long start = START + 86_400_000_000L;
        RateLimiter reference = MemoryStore.builder().clock(clock).build().limiter(limit);
        RateLimiter redisLimiter = store.limiter(limit);
        String key = "client-" + UUID.randomUUID();
        for (long[] step : steps) {
            clock.setMicros(start + step[0]);
            Decision want = reference.tryAcquire(key, step[1]);
            Decision got = redisLimiter.tryAcquire(key, step[1]);
            assertThat(got).as("%s at +%d µs, cost %d", limit, step[0], step[1]).isEqualTo(want);
        }
    }

    private static void checkAt(Policy policy, long[][] steps) {
        checkAt(Limit.of("stepping-back", policy), steps);
    }

    private static Limit composite(int capacity, int limit, int logLimit) {
        return Limit.of("composite", Policy.tokenBucket(capacity, 3, Duration.ofSeconds(1)),
                Policy.fixedWindow(limit + 1, Duration.ofMillis(800)),
                Policy.slidingWindowCounter(limit, Duration.ofSeconds(2)),
                Policy.slidingWindowLog(logLimit, Duration.ofMillis(1500)),
                Policy.gcra(2, Duration.ofMillis(700), 3));
    }

    private static void check(Policy policy, long offset, List<Step> steps) {
        check(Limit.of("property", policy), offset, steps, store);
    }

    private static void check(Limit limit, long offset, List<Step> steps, RedisStore under) {
        clock.setMicros(START + offset);
        RateLimiter reference = MemoryStore.builder().clock(clock).build().limiter(limit);
        RateLimiter redisLimiter = under.limiter(limit);
        String key = "client-" + UUID.randomUUID();
        for (Step step : steps) {
            clock.advanceMicros(step.advanceMicros());
            Decision want = reference.tryAcquire(key, step.cost());
            Decision got = redisLimiter.tryAcquire(key, step.cost());
            assertThat(got).as("%s at %s, cost %d", limit, clock, step.cost()).isEqualTo(want);
        }
    }
}
