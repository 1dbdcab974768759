package dev.ratelimit.store.memory;

import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

import static dev.ratelimit.Fixtures.clock;
import static org.assertj.core.api.Assertions.assertThat;

class MemoryStoreConcurrencyTest {
    private static final int THREADS = 16;
    private final ManualClock clock = clock(); // never advanced: no refill

    @Test
    void manyThreadsOnOneKeyAdmitExactlyTheCapacityForEveryAlgorithm() throws Exception {
        List<Policy> policies = List.of(Policy.tokenBucket(1_000, 1, Duration.ofHours(1)), Policy.fixedWindow(1_000, Duration.ofHours(1)),
                Policy.slidingWindowLog(1_000, Duration.ofHours(1)), Policy.slidingWindowCounter(1_000, Duration.ofHours(1)),
                Policy.gcra(1, Duration.ofHours(1), 1_000));
        for (Policy policy : policies) {
            RateLimiter limiter = MemoryStore.builder().clock(clock).build().limiter(Limit.of("race", policy));
            assertThat(race(limiter, i -> "hot", 500)).as(policy.algorithm()).isEqualTo(1_000);
        }
    }

    @Test
    void threadsRacingThroughAMillionAdmissionsOnOneKeyAdmitExactlyTheLimit() throws Exception {
        // The race above is over in microseconds (1,000 admissions): threads may well take turns.
        // Here 4 threads race through a million admissions each algorithm holds, so they overlap for
        // the whole of it; a decision not under its shard's lock loses updates and admits more.
        List<Policy> policies = List.of(Policy.tokenBucket(1_000_000, 1, Duration.ofHours(1)),
                Policy.fixedWindow(1_000_000, Duration.ofHours(1)), Policy.slidingWindowCounter(1_000_000, Duration.ofHours(1)),
                Policy.gcra(1, Duration.ofHours(1), 1_000_000));
        for (Policy policy : policies) {
            RateLimiter limiter = MemoryStore.builder().clock(clock).build().limiter(Limit.of("long-race", policy));
            assertThat(race(limiter, 4, i -> "hot", 300_000)).as(policy.algorithm()).isEqualTo(1_000_000);
        }
    }

    @Test
    void threadsMakingAKeysShardAtOnceShareOneShard() throws Exception {
        // A shard is made at its first key: threads whose first request lands in a shard not yet made
        // race to make it, and a lost race that kept its own shard would admit the limit twice.
        // A cap of 128 keys makes one shard, so every thread races for it; 300 fresh limiters.
        long overAdmitted = 0;
        for (int round = 0; round < 300; round++) {
            RateLimiter limiter = MemoryStore.builder().clock(clock).maxKeysPerLimit(128).build()
                    .limiter(Limit.of("fresh", Policy.fixedWindow(5, Duration.ofHours(1))));
            overAdmitted += race(limiter, 8, i -> "hot", 3) - 5;
        }
        assertThat(overAdmitted).isZero();
    }

    @Test
    void manyKeysShowNoCrossTalk() throws Exception {
        RateLimiter limiter = MemoryStore.builder().clock(clock).build().limiter(Limit.of("keys", Policy.fixedWindow(10, Duration.ofHours(1))));
        // 16 threads x 2,000 requests over 500 keys: every key gets 64 tries and admits exactly 10.
        long admitted = race(limiter, i -> "key-" + (i % 500), 2_000);
        assertThat(admitted).isEqualTo(500 * 10);
    }

    private long race(RateLimiter limiter, java.util.function.IntFunction<String> key, int perThread) throws Exception {
        return race(limiter, THREADS, key, perThread);
    }

    private long race(RateLimiter limiter, int threads, java.util.function.IntFunction<String> key, int perThread) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            AtomicLong admitted = new AtomicLong();
            Future<?>[] futures = new Future<?>[threads];
            for (int t = 0; t < threads; t++) {
                int offset = t * perThread;
                futures[t] = pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                        if (limiter.tryAcquire(key.apply(offset + i)).allowed()) {
                            admitted.incrementAndGet();
                        }
                    }
                    return null;
                });
            }
            start.countDown();
            for (Future<?> f : futures) {
                f.get();
            }
            return admitted.get();
        } finally {
            pool.shutdownNow();
        }
    }
}
