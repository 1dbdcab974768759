package dev.ratelimit.store.redis;

import dev.ratelimit.FailureMode;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import dev.ratelimit.testing.RedisCluster;
import dev.ratelimit.testing.RedisServer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static dev.ratelimit.store.redis.RedisCancelledCallTest.in;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Cluster call has one time budget, the read timeout: Jedis' cluster executor starts no attempt
 * after it, and the store does not send a Cluster call again ("it would start a second budget").
 * A master that stops answering and then dies (a hung host killed by its supervisor) breaks the
 * connections its calls wait on part-way through their budget. Unbatched, the call's remaining
 * attempts (and their back-off) fit in what is left of its budget. Batched, each call of the broken
 * batch is sent again on its own with a whole new budget: its caller can wait well past the read
 * timeout (from review of 3da9c48).
 */
class RedisClusterBatchBudgetTest {
    private static final Limit LIMIT = Limit.of("budget", Policy.fixedWindow(1_000, Duration.ofDays(400)));
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(2);
    private static final int CALLERS = 16;

    private RedisCluster cluster;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeEach
    void startCluster() {
        cluster = RedisCluster.start(3, 0);
    }

    @AfterEach
    void stopCluster() {
        threads.shutdownNow();
        cluster.close();
    }

    @ParameterizedTest(name = "pipelining {0}")
    @ValueSource(booleans = {false, true})
    void callersOfAMasterThatHangsThenDiesWaitNoLongerThanTheirReadTimeout(boolean pipelining) throws Exception {
        try (RedisStore store = RedisStore.builder().url(cluster.url()).pipelining(pipelining)
                .readTimeout(READ_TIMEOUT).failureMode(FailureMode.FAIL_CLOSED)
                .circuitBreaker(1_000, Duration.ofHours(1)).build()) {
            RateLimiter limiter = store.limiter(LIMIT);
            RedisServer dying = cluster.currentMasters().get(0);
            String client = clientOn(dying);
            assertThat(limiter.tryAcquire(client).source()).isEqualTo(Source.STORE);

            dying.pause();
            List<Thread> callers = new CopyOnWriteArrayList<>();
            List<Future<long[]>> waited = new ArrayList<>();
            long submitted = System.nanoTime();
            for (int i = 0; i < CALLERS; i++) {
                waited.add(threads.submit(() -> {
                    callers.add(Thread.currentThread());
                    long start = System.nanoTime();
                    Source source = limiter.tryAcquire(client).source();
                    return new long[] {source.ordinal(), (System.nanoTime() - start) / 1_000_000};
                }));
            }
            // Every caller waits on the hung master: in a socket read, or queued behind a batch that is.
            Awaitility.await().atMost(READ_TIMEOUT.dividedBy(2)).until(() -> callers.size() == CALLERS
                    && callers.stream().allMatch(t -> in(t, "RedisInputStream") || in(t, "CallBatcher")));
            // Half the budget on, the hung master is killed: its connections break at once.
            Awaitility.await().atMost(READ_TIMEOUT).until(() -> System.nanoTime() - submitted >= READ_TIMEOUT.toNanos() / 2);
            dying.kill();

            long longest = 0;
            for (Future<long[]> f : waited) {
                long[] outcome = f.get(10, TimeUnit.SECONDS);
                assertThat(Source.values()[(int) outcome[0]]).isEqualTo(Source.FAIL_CLOSED);
                longest = Math.max(longest, outcome[1]);
            }
            // Before: up to a whole second budget more (with its back-off); a margin for a busy machine.
            assertThat(longest).as("the longest wait of a caller, ms").isLessThan(READ_TIMEOUT.toMillis() * 6 / 5);
        }
    }

    private String clientOn(RedisServer master) {
        for (int i = 0; ; i++) {
            String client = "client-" + i;
            String key = ScriptLimit.key("rl:", LIMIT, ClientHash.sha256().of(client), 0);
            if (cluster.masterOf(cluster.slot(key)) == master) {
                return client;
            }
        }
    }
}
