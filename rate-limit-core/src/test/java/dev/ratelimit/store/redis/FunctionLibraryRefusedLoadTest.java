package dev.ratelimit.store.redis;

import dev.ratelimit.Decision;
import dev.ratelimit.FailureMode;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.ratelimit.Fixtures.clock;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Callers that wait for another caller's load of the library share its outcome: a load the server
 * refuses for good (an ACL denying FUNCTION LOAD) turns the library off for the waiters too, who then
 * decide by EVALSHA like the loader. Redis here is a fake client whose load the test holds.
 */
class FunctionLibraryRefusedLoadTest {
    private static final List<Long> ALLOWED = List.of(0L, 0L, 9L, 1_000L, 0L);

    /** FCALL finds no library; FUNCTION LOAD waits for the test, then is refused; EVALSHA decides. */
    private static final class NoLibraryRedis extends UnifiedJedis {
        final CountDownLatch releaseLoad = new CountDownLatch(1);
        final AtomicInteger loads = new AtomicInteger();

        NoLibraryRedis() {
            super(new NoConnections(), RedisProtocol.RESP2);
        }

        @Override
        public Object fcall(String name, List<String> keys, List<String> args) {
            throw new JedisDataException("ERR Function not found");
        }

        @Override
        public Object executeCommand(CommandArguments args) {
            loads.incrementAndGet();
            try {
                releaseLoad.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new JedisDataException("NOPERM User limiter has no permissions to run the 'function|load' command");
        }

        @Override
        public Object evalsha(String sha1, List<String> keys, List<String> args) {
            return ALLOWED;
        }
    }

    private final ExecutorService threads = Executors.newFixedThreadPool(2);

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    @Test
    void aCallerWaitingForALoadTheServerRefusesDecidesByScriptsLikeTheLoader() throws Exception {
        NoLibraryRedis redis = new NoLibraryRedis();
        RateLimiter limiter = RedisStore.builder().client(redis).clock(clock()).failureMode(FailureMode.FAIL_CLOSED)
                .denialCache(false).pipelining(false).build()
                .limiter(Limit.of("load", Policy.fixedWindow(10, Duration.ofMinutes(1))));

        Future<Decision> loader = threads.submit(() -> limiter.tryAcquire("a"));
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> redis.loads.get() == 1);
        Thread[] waiter = new Thread[1];
        Future<Decision> waiting = threads.submit(() -> {
            waiter[0] = Thread.currentThread();
            return limiter.tryAcquire("b");
        });
        Awaitility.await().atMost(Duration.ofSeconds(10))
                .until(() -> waiter[0] != null && waiter[0].getState() == Thread.State.WAITING);
        redis.releaseLoad.countDown();

        assertThat(loader.get(10, TimeUnit.SECONDS).source()).isEqualTo(Source.STORE);
        assertThat(waiting.get(10, TimeUnit.SECONDS).source()).as("the waiter shares the loader's outcome").isEqualTo(Source.STORE);
        assertThat(redis.loads).as("one load for both").hasValue(1);
    }
}
