package dev.ratelimit.store.redis;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.CommandObjects;
import redis.clients.jedis.Connection;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.providers.ConnectionProvider;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The batcher's hand-offs, with pipelines the test holds open (a real Redis cannot hold one batch
 * and release another): who sends, who waits, and that waiting callers sleep. Decisions over a real
 * Redis are in {@link RedisPipeliningTest}.
 */
class CallBatcherTest {
    private static final List<Long> REPLY = List.of(0L, 0L, 9L, 100L, 0L);
    private final HeldRedis redis = new HeldRedis();
    private final CallBatcher batcher = new CallBatcher(true, client -> true);
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final List<Thread> callers = new CopyOnWriteArrayList<>();

    @AfterEach
    void releaseEverything() {
        redis.pipelines.forEach(p -> p.release.countDown());
        threads.shutdownNow();
    }

    @Test
    void callersQueuedBehindBusySendersGoTogetherAndWaitAsleepWhileTheirBatchIsOut() throws Exception {
        // One at a time: callers arriving together may share a pipeline (a caller that takes a slot sends
        // whatever is queued, others' calls too), and the held pipelines would then never number four.
        List<Future<Object>> first = new ArrayList<>();
        for (int i = 1; i <= CallBatcher.MAX_SENDERS; i++) {
            first.addAll(calls(1));
            int sent = i;
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> redis.pipelines.size() == sent);
        }
        callers.clear();
        List<Future<Object>> queued = calls(10);
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> allWaiting(10));

        // One sender finishes and wakes the oldest queued caller, which sends all ten calls as one
        // pipeline, which the test holds. (Releasing every sender at once would let two woken callers
        // send at the same time and split the queue between them: allowed, but not this test's point.)
        // (Which of the first callers made pipeline 0 is up to the scheduler: wait for whichever did.)
        redis.pipelines.get(0).release.countDown();
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> first.stream().filter(Future::isDone).count() == 1);
        assertThat(first.stream().filter(Future::isDone).findFirst().orElseThrow().get()).isEqualTo(REPLY);
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> redis.pipelines.size() == CallBatcher.MAX_SENDERS + 1);
        HeldPipeline batch = redis.pipelines.get(CallBatcher.MAX_SENDERS);
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> batch.commands.size() == 10);
        for (int i = 1; i < CallBatcher.MAX_SENDERS; i++) {
            redis.pipelines.get(i).release.countDown();
        }
        for (Future<Object> f : first) {
            assertThat(f.get(10, TimeUnit.SECONDS)).isEqualTo(REPLY);
        }
        // Sender slots are free, yet the other nine only wait for that batch: parked, not polling,
        // even when woken spuriously (as LockSupport.park allows, and as a sender's hand-off does).
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> allWaiting(10));
        callers.forEach(LockSupport::unpark);
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> allWaiting(10));
        assertThat(redis.pipelines).hasSize(CallBatcher.MAX_SENDERS + 1);

        batch.release.countDown();
        for (Future<Object> f : queued) {
            assertThat(f.get(10, TimeUnit.SECONDS)).isEqualTo(REPLY);
        }
    }

    @Test
    void aBatchThatFailsFailsEachOfItsCalls() throws Exception {
        redis.failWith = new JedisConnectionException("connection reset");
        failsEachCallAndHandsOnTheQueue(JedisConnectionException.class);
    }

    @Test
    void aBatchThatFailsWithAnErrorStillFailsEachOfItsCallsAndWakesTheQueue() throws Exception {
        // A Jedis of another version on the class path. Before, the sender skipped its hand-off, the
        // others in its batch got no answer at all, and queued callers stayed parked until new traffic.
        redis.failWith = new NoSuchMethodError("redis.clients.jedis.Response.get()");
        failsEachCallAndHandsOnTheQueue(NoSuchMethodError.class);
    }

    @Test
    void aStackOverflowOnTheSendersThreadIsItsOwnTheOthersGetAStoreFailure() throws Exception {
        // An Error tied to the sender's thread (its deep stack) must not reach the requests that only
        // rode in its batch: they would become 500s where alone they would have passed.
        redis.failWith = new StackOverflowError("deep");
        List<Throwable> failures = failuresWhenTheQueueIsHandedOn();
        int own = 0;
        int rode = 0;
        for (Throwable cause : failures) {
            if (cause instanceof StackOverflowError) {
                own++;
            } else {
                assertThat(cause).isInstanceOf(JedisException.class).hasCauseInstanceOf(StackOverflowError.class);
                rode++;
            }
        }
        assertThat(own).as("at most one per sender").isLessThanOrEqualTo(redis.pipelines.size());
        assertThat(rode).as("the last batch carried others' calls").isPositive();
    }

    private void failsEachCallAndHandsOnTheQueue(Class<? extends Throwable> failure) throws Exception {
        assertThat(failuresWhenTheQueueIsHandedOn()).allSatisfy(cause -> assertThat(cause).isInstanceOf(failure));
    }

    /** Each call's failure, when failing batches go out one sender at a time and the last carries the queue. */
    private List<Throwable> failuresWhenTheQueueIsHandedOn() {
        List<Future<Object>> calls = calls(CallBatcher.MAX_SENDERS + 6);
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> redis.pipelines.size() == CallBatcher.MAX_SENDERS);
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> allWaiting(CallBatcher.MAX_SENDERS + 6));
        // One sender at a time, as above: its failure wakes the oldest queued caller, which sends the rest.
        redis.pipelines.get(0).release.countDown();
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> redis.pipelines.size() == CallBatcher.MAX_SENDERS + 1);
        redis.pipelines.forEach(p -> p.release.countDown());
        List<Throwable> failures = new ArrayList<>();
        for (Future<Object> f : calls) {
            Throwable thrown = catchThrowable(() -> f.get(10, TimeUnit.SECONDS));
            assertThat(thrown).as("every call fails").isInstanceOf(ExecutionException.class);
            failures.add(thrown.getCause());
        }
        return failures;
    }

    private List<Future<Object>> calls(int n) {
        List<Future<Object>> futures = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String key = "k" + i;
            futures.add(threads.submit(() -> {
                callers.add(Thread.currentThread());
                return batcher.fcall(redis, "decide", List.of(key), List.of("time", "1"));
            }));
        }
        return futures;
    }

    private boolean allWaiting(int n) {
        return callers.size() == n && callers.stream().allMatch(t -> t.getState() == Thread.State.WAITING);
    }

    /** A client whose pipelines answer only when the test releases them. */
    private static final class HeldRedis extends UnifiedJedis {
        final List<HeldPipeline> pipelines = new CopyOnWriteArrayList<>();
        volatile Throwable failWith;

        HeldRedis() {
            super(new ConnectionProvider() {
                @Override
                public Connection getConnection() {
                    throw new UnsupportedOperationException("only pipelines are used");
                }

                @Override
                public Connection getConnection(CommandArguments args) {
                    throw new UnsupportedOperationException("only pipelines are used");
                }

                @Override
                public void close() {
                }
            }, RedisProtocol.RESP2);
        }

        @Override
        public AbstractPipeline pipelined() {
            HeldPipeline p = new HeldPipeline(failWith);
            pipelines.add(p);
            return p;
        }
    }

    /** Queues commands; {@code sync} waits for the test, then answers each with {@link #REPLY} (or fails). */
    private static final class HeldPipeline extends AbstractPipeline {
        final CountDownLatch release = new CountDownLatch(1);
        final List<Response<?>> commands = new CopyOnWriteArrayList<>();
        private final Throwable failure;

        HeldPipeline(Throwable failure) {
            super(new CommandObjects(RedisProtocol.RESP2));
            this.failure = failure;
        }

        @Override
        protected <T> Response<T> appendCommand(CommandObject<T> command) {
            Response<T> r = new Response<>(command.getBuilder());
            commands.add(r);
            return r;
        }

        @Override
        public void sync() {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (failure instanceof RuntimeException e) {
                throw e;
            }
            if (failure instanceof Error e) {
                throw e;
            }
            commands.forEach(r -> r.set(REPLY));
        }

        @Override
        public void close() {
        }
    }
}
