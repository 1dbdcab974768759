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
import redis.clients.jedis.exceptions.JedisException;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.ratelimit.Fixtures.clock;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A load of the library ended by the loading thread's interrupt (a cancelled task, interrupted while
 * it waited for a pooled connection) is that thread's alone: the callers waiting for that load load
 * it again rather than share a failure Redis never had. Redis here is a fake client whose first load
 * waits until the loader is interrupted.
 */
class FunctionLibraryInterruptedLoadTest {
    private static final List<Long> ALLOWED = List.of(0L, 0L, 9L, 1_000L, 0L);

    /** FCALL finds no library until a load succeeds; the first load waits for its thread's interrupt. */
    private static final class InterruptibleLoadRedis extends UnifiedJedis {
        final AtomicInteger loadsTried = new AtomicInteger();
        volatile boolean loaded;

        InterruptibleLoadRedis() {
            super(new NoConnections(), RedisProtocol.RESP2);
        }

        @Override
        public Object fcall(String name, List<String> keys, List<String> args) {
            if (!loaded) {
                throw new JedisDataException("ERR Function not found");
            }
            return ALLOWED;
        }

        @Override
        public Object executeCommand(CommandArguments args) {
            if (loadsTried.incrementAndGet() == 1) {
                try {
                    new CountDownLatch(1).await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    // As Jedis' pool reports a borrow interrupted while it waited for a connection.
                    throw new JedisException("Could not get a resource from the pool", e);
                }
            }
            loaded = true;
            return "ratelimit";
        }
    }

    private final ExecutorService threads = Executors.newFixedThreadPool(2);

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    @Test
    void callersWaitingForALoadItsThreadsInterruptEndedLoadTheLibraryThemselves() throws Exception {
        InterruptibleLoadRedis redis = new InterruptibleLoadRedis();
        RateLimiter limiter = RedisStore.builder().client(redis).clock(clock()).failureMode(FailureMode.FAIL_CLOSED)
                .denialCache(false).pipelining(false).build()
                .limiter(Limit.of("load", Policy.fixedWindow(10, Duration.ofMinutes(1))));

        List<Thread> callers = new CopyOnWriteArrayList<>();
        Future<Decision> loader = threads.submit(() -> {
            callers.add(Thread.currentThread());
            return limiter.tryAcquire("a");
        });
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> redis.loadsTried.get() == 1);
        Future<Decision> waiting = threads.submit(() -> {
            callers.add(Thread.currentThread());
            return limiter.tryAcquire("b");
        });
        Awaitility.await().atMost(Duration.ofSeconds(10))
                .until(() -> callers.size() == 2 && callers.get(1).getState() == Thread.State.WAITING);
        callers.get(0).interrupt();

        assertThat(loader.get(10, TimeUnit.SECONDS).source()).as("the cancelled loader: the failure mode's answer")
                .isEqualTo(Source.FAIL_CLOSED);
        assertThat(waiting.get(10, TimeUnit.SECONDS).source()).as("the waiter loads again and decides").isEqualTo(Source.STORE);
        assertThat(redis.loadsTried).as("the interrupted load, then the waiter's").hasValue(2);
    }
}
