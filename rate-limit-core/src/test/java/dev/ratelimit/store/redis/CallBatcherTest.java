package dev.ratelimit.store.redis;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
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

import java.net.SocketException;
import java.net.SocketTimeoutException;
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
    private final CallBatcher batcher = new CallBatcher(true, client -> true, () -> false, CallBatcherTest::poolOf);
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

    @Test
    void aBatchCarriesAtMostMaxBatchCallsAndTheRestGoInTheNext() throws Exception {
        List<Future<Object>> first = holdEverySender();
        List<Future<Object>> queued = calls(CallBatcher.MAX_BATCH + 6);
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> allWaiting(CallBatcher.MAX_BATCH + 6));

        redis.pipelines.get(0).release.countDown();
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> redis.pipelines.size() == CallBatcher.MAX_SENDERS + 1);
        HeldPipeline batch = redis.pipelines.get(CallBatcher.MAX_SENDERS);
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> batch.syncing);
        assertThat(batch.commands).hasSize(CallBatcher.MAX_BATCH);

        redis.answerAtOnce = true;
        redis.pipelines.forEach(p -> p.release.countDown());
        for (Future<Object> f : first) {
            assertThat(f.get(10, TimeUnit.SECONDS)).isEqualTo(REPLY);
        }
        for (Future<Object> f : queued) {
            assertThat(f.get(10, TimeUnit.SECONDS)).isEqualTo(REPLY);
        }
    }

    @Test
    void eachBatchedCallGoesAsTheCommandItWas() throws Exception {
        redis.answerAtOnce = true;
        assertThat(batcher.fcall(redis, "decide", List.of("k"), List.of("time", "1"))).isEqualTo(REPLY);
        assertThat(batcher.evalsha(redis, "0123456789abcdef0123456789abcdef01234567", List.of("k"), List.of("time", "1")))
                .isEqualTo(REPLY);
        assertThat(redis.pipelines).hasSize(2);
        assertThat(redis.pipelines.get(0).names).containsExactly("FCALL");
        assertThat(redis.pipelines.get(1).names).containsExactly("EVALSHA");
    }

    @Test
    void switchedOffOrOnAClientNotKnownToTalkToOneServerEachCallGoesOnItsOwn() {
        redis.answerAtOnce = true; // a call batched by mistake gets its answer (and shows in pipelines) rather than hanging
        for (CallBatcher unbatched : List.of(new CallBatcher(false, client -> true, () -> false, CallBatcherTest::poolOf), new CallBatcher(true, () -> false, () -> null, null))) {
            assertThat(unbatched.fcall(redis, "decide", List.of("k"), List.of("time", "1"))).isEqualTo(REPLY);
            assertThat(unbatched.evalsha(redis, "0123456789abcdef0123456789abcdef01234567", List.of("k"), List.of("time", "1")))
                    .isEqualTo(REPLY);
        }
        assertThat(redis.pipelines).isEmpty();
        assertThat(redis.direct).containsExactly("FCALL decide", "EVALSHA 0123456789abcdef0123456789abcdef01234567",
                "FCALL decide", "EVALSHA 0123456789abcdef0123456789abcdef01234567");
    }

    private static Object poolOf(UnifiedJedis client) {
        return ((HeldRedis) client).pool;
    }

    /** What Jedis throws when commons-pool's wait for a connection is interrupted (the status then clear). */
    private static RuntimeException interruptedWait() {
        return new JedisException("Could not get a resource from the pool", new InterruptedException());
    }

    @Test
    void aCallOnItsOwnWhoseWaitForAConnectionEndedAsItsPoolWasReplacedIsSentOnTheNewPool() {
        // At a Sentinel failover Jedis replaces the master's pool and closes the old one, which
        // interrupts the threads waiting for its connections: nobody cancelled them.
        CallBatcher unbatched = new CallBatcher(false, client -> true, () -> false, CallBatcherTest::poolOf);
        redis.directFailures.add(() -> {
            redis.pool = new Object();
            return interruptedWait();
        });

        assertThat(unbatched.evalsha(redis, "0123456789abcdef0123456789abcdef01234567", List.of("k"), List.of("time", "1"))).isEqualTo(REPLY);
        assertThat(redis.direct).containsExactly("EVALSHA 0123456789abcdef0123456789abcdef01234567");
        assertThat(Thread.interrupted()).as("interrupt status").isFalse();
    }

    @Test
    void aCallOnItsOwnCancelledWhileItWaitsForAConnectionIsNotSentAgain() {
        CallBatcher unbatched = new CallBatcher(false, client -> true, () -> false, CallBatcherTest::poolOf);
        RuntimeException cancelled = interruptedWait();
        redis.directFailures.add(() -> cancelled); // the same pool: the caller's own interrupt

        assertThat(catchThrowable(() -> unbatched.fcall(redis, "decide", List.of("k"), List.of("time", "1")))).isSameAs(cancelled);
        assertThat(redis.direct).isEmpty();
    }

    @Test
    void aCallAVirtualThreadsInterruptFailedAfterItsSendIsNotSentAgainThoughThePoolWasReplaced() {
        // A virtual thread's interrupt closes its socket, maybe after the call went out, and leaves the
        // interrupt status set: from a review, such a call was sent again when a failover came meanwhile.
        CallBatcher unbatched = new CallBatcher(false, client -> true, () -> false, CallBatcherTest::poolOf);
        RuntimeException closedByInterrupt = new JedisConnectionException(new java.net.SocketException("Closed by interrupt"));
        redis.directFailures.add(() -> {
            redis.pool = new Object();
            Thread.currentThread().interrupt();
            return closedByInterrupt;
        });
        try {
            assertThat(catchThrowable(() -> unbatched.fcall(redis, "decide", List.of("k"), List.of("time", "1")))).isSameAs(closedByInterrupt);
            assertThat(redis.direct).isEmpty();
        } finally {
            assertThat(Thread.interrupted()).as("interrupt status kept").isTrue();
        }
    }

    @Test
    void aCallerThatWasNotInterruptedComesBackNotInterrupted() throws Exception {
        // A lone caller sends its own call.
        redis.answerAtOnce = true;
        assertThat(batcher.fcall(redis, "decide", List.of("k"), List.of("time", "1"))).isEqualTo(REPLY);
        assertThat(Thread.interrupted()).as("the sender's interrupt status").isFalse();

        // Callers queued behind busy senders wait parked, then come back as they went.
        redis.answerAtOnce = false;
        redis.pipelines.clear();
        holdEverySender();
        List<Future<Boolean>> queued = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String key = "q" + i;
            queued.add(threads.submit(() -> {
                callers.add(Thread.currentThread());
                batcher.fcall(redis, "decide", List.of(key), List.of("time", "1"));
                return Thread.currentThread().isInterrupted();
            }));
        }
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> allWaiting(3));
        redis.answerAtOnce = true;
        redis.pipelines.forEach(p -> p.release.countDown());
        for (Future<Boolean> f : queued) {
            assertThat(f.get(10, TimeUnit.SECONDS)).as("a waiting caller's interrupt status").isFalse();
        }
    }

    @Test
    void aCallerInterruptedWhileItWaitsStillGetsItsReplyAndKeepsItsInterrupt() throws Exception {
        holdEverySender();
        Future<Object[]> queued = threads.submit(() -> {
            callers.add(Thread.currentThread());
            Object reply = batcher.fcall(redis, "decide", List.of("q"), List.of("time", "1"));
            return new Object[] {reply, Thread.currentThread().isInterrupted()};
        });
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> allWaiting(1));
        callers.get(0).interrupt();
        // Its call is still queued: it waits on (parked) rather than giving up or spinning.
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> allWaiting(1));
        assertThat(queued).isNotDone();

        redis.answerAtOnce = true;
        redis.pipelines.forEach(p -> p.release.countDown());
        Object[] outcome = queued.get(10, TimeUnit.SECONDS);
        assertThat(outcome[0]).isEqualTo(REPLY);
        assertThat(outcome[1]).as("interrupt status restored").isEqualTo(true);
    }

    @Test
    @Tag("virtual-threads")
    @EnabledForJreRange(min = JRE.JAVA_21, disabledReason = "virtual threads need Java 21+: run with -DvirtualThreadsJvm=<a Java 21+ java> (as .ci/run does)")
    void interruptingVirtualThreadCallersBreaksNoBatchOfTheirs() throws Exception {
        // A virtual thread's socket I/O is interruptible: an interrupt closes the socket. Ten virtual
        // threads queue behind busy senders; one of them then sends all ten calls as one pipeline, and
        // every one of them is interrupted (a cancelled task each) while that pipeline is out. Before,
        // the sender's interrupt closed the connection under all ten calls: each failed, and the store
        // sent them again on a fresh connection though Redis had run them, charging each client twice.
        redis.closesOnInterrupt = true;
        ExecutorService virtualThreads = (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        try {
            List<Future<Object>> first = holdEverySender();
            List<Future<Object[]>> queued = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                String key = "v" + i;
                queued.add(virtualThreads.submit(() -> {
                    callers.add(Thread.currentThread());
                    Object reply = batcher.fcall(redis, "decide", List.of(key), List.of("time", "1"));
                    return new Object[] {reply, Thread.currentThread().isInterrupted()};
                }));
            }
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> allWaiting(10));
            redis.pipelines.get(0).release.countDown();
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> redis.pipelines.size() == CallBatcher.MAX_SENDERS + 1);
            HeldPipeline batch = redis.pipelines.get(CallBatcher.MAX_SENDERS);
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> batch.syncing && batch.commands.size() == 10);

            callers.forEach(Thread::interrupt);
            redis.pipelines.forEach(p -> p.release.countDown());
            for (Future<Object[]> f : queued) {
                Object[] outcome = f.get(10, TimeUnit.SECONDS);
                assertThat(outcome[0]).as("each call's reply").isEqualTo(REPLY);
                assertThat(outcome[1]).as("interrupt status restored").isEqualTo(true);
            }
            for (Future<Object> f : first) {
                assertThat(f.get(10, TimeUnit.SECONDS)).isEqualTo(REPLY);
            }
            assertThat(redis.pipelines).as("nothing sent again").hasSize(CallBatcher.MAX_SENDERS + 1);
        } finally {
            virtualThreads.shutdownNow();
        }
    }

    @Test
    @Tag("virtual-threads")
    @EnabledForJreRange(min = JRE.JAVA_21, disabledReason = "virtual threads need Java 21+: run with -DvirtualThreadsJvm=<a Java 21+ java> (as .ci/run does)")
    void aVirtualCallersSendingThreadInterruptedByAPoolClosingSendsItsCallsAgain() throws Exception {
        // A virtual caller's batch goes from a sending thread nobody interrupts, but a pool closing
        // interrupts the threads waiting for its connections: Jedis replaces a Sentinel client's pool
        // at a failover and closes the old one. Nothing was sent: the calls go on the new pool rather
        // than fail (from a review: they failed, each decided by the failure mode, each caller interrupted).
        redis.answerAtOnce = true;
        redis.borrowFailures.add(new JedisException("Could not get a resource from the pool", new InterruptedException()));
        ExecutorService virtualThreads = (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        try {
            Object[] outcome = virtualThreads.submit(() -> {
                Object reply = batcher.fcall(redis, "decide", List.of("k"), List.of("time", "1"));
                return new Object[] {reply, Thread.currentThread().isInterrupted()};
            }).get(10, TimeUnit.SECONDS);
            assertThat(outcome[0]).isEqualTo(REPLY);
            assertThat(outcome[1]).as("interrupt status").isEqualTo(false);
            assertThat(redis.pipelines).as("sent once, on the second connection asked for").hasSize(1);
        } finally {
            virtualThreads.shutdownNow();
        }
    }

    @Test
    void aTimedOutBatchFailsTheCallsQueuedMeanwhileWithoutSendingThem() throws Exception {
        JedisConnectionException timeout = new JedisConnectionException(new SocketTimeoutException("Read timed out"));
        redis.failWith = timeout;
        List<Future<Object>> first = holdEverySender();
        List<Future<Object>> queued = calls(6);
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> allWaiting(6));

        redis.pipelines.get(0).release.countDown();
        // The six queued calls fail with the first batch's timeout while the other senders are still out.
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> queued.stream().allMatch(Future::isDone));
        assertThat(redis.pipelines).as("no batch sent after the timeout").hasSize(CallBatcher.MAX_SENDERS);
        redis.pipelines.forEach(p -> p.release.countDown());
        for (Future<Object> f : queued) {
            Throwable thrown = catchThrowable(() -> f.get(10, TimeUnit.SECONDS));
            assertThat(thrown).isInstanceOf(ExecutionException.class).hasCause(timeout);
        }
        for (Future<Object> f : first) {
            assertThat(catchThrowable(() -> f.get(10, TimeUnit.SECONDS))).hasCause(timeout);
        }
    }

    @Test
    void aStackOverflowOnALoneSendersThreadIsThrownAsItselfAsItWouldBeUnbatched() {
        StackOverflowError deep = new StackOverflowError("deep");
        redis.failWith = deep;
        redis.answerAtOnce = true;
        assertThat(catchThrowable(() -> batcher.fcall(redis, "decide", List.of("k"), List.of("time", "1")))).isSameAs(deep);
    }

    /** {@link CallBatcher#MAX_SENDERS} callers, each sending its own call in a pipeline the test holds. */
    private List<Future<Object>> holdEverySender() {
        List<Future<Object>> first = new ArrayList<>();
        for (int i = 1; i <= CallBatcher.MAX_SENDERS; i++) {
            first.addAll(calls(1));
            int sent = i;
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> redis.pipelines.size() == sent);
        }
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> redis.pipelines.stream().allMatch(p -> p.syncing));
        callers.clear();
        return first;
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
        /** Calls made on their own, not in a pipeline. */
        final List<String> direct = new CopyOnWriteArrayList<>();
        volatile Throwable failWith;
        /** Whether new pipelines answer without waiting for the test. */
        volatile boolean answerAtOnce;
        /** Whether a pipeline fails when its thread is interrupted during sync, as a virtual thread's socket does. */
        volatile boolean closesOnInterrupt;
        /** The pool its connections come from, as a Sentinel client's: a test replaces it as a failover does. */
        volatile Object pool = new Object();
        /** Run before the next calls on their own, one each: one that returns a failure fails its call. */
        final java.util.Queue<java.util.function.Supplier<RuntimeException>> directFailures = new java.util.concurrent.ConcurrentLinkedQueue<>();
        /** Failures of the next requests for a pipeline (its pooled connection), one each, before any is made. */
        final java.util.Queue<RuntimeException> borrowFailures = new java.util.concurrent.ConcurrentLinkedQueue<>();

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
            RuntimeException noConnection = borrowFailures.poll();
            if (noConnection != null) {
                throw noConnection;
            }
            HeldPipeline p = new HeldPipeline(failWith, closesOnInterrupt);
            if (answerAtOnce) {
                p.release.countDown();
            }
            pipelines.add(p);
            return p;
        }

        @Override
        public Object fcall(String name, List<String> keys, List<String> args) {
            failDirect();
            direct.add("FCALL " + name);
            return REPLY;
        }

        @Override
        public Object evalsha(String sha1, List<String> keys, List<String> args) {
            failDirect();
            direct.add("EVALSHA " + sha1);
            return REPLY;
        }

        private void failDirect() {
            java.util.function.Supplier<RuntimeException> next = directFailures.poll();
            RuntimeException failure = next == null ? null : next.get();
            if (failure != null) {
                throw failure;
            }
        }
    }

    /** Queues commands; {@code sync} waits for the test, then answers each with {@link #REPLY} (or fails). */
    private static final class HeldPipeline extends AbstractPipeline {
        final CountDownLatch release = new CountDownLatch(1);
        final List<Response<?>> commands = new CopyOnWriteArrayList<>();
        /** Each command's name, in order. */
        final List<String> names = new CopyOnWriteArrayList<>();
        /** Set once its sender has queued every command and waits for the answers. */
        volatile boolean syncing;
        private final Throwable failure;
        private final boolean closesOnInterrupt;

        HeldPipeline(Throwable failure, boolean closesOnInterrupt) {
            super(new CommandObjects(RedisProtocol.RESP2));
            this.failure = failure;
            this.closesOnInterrupt = closesOnInterrupt;
        }

        @Override
        protected <T> Response<T> appendCommand(CommandObject<T> command) {
            Response<T> r = new Response<>(command.getBuilder());
            names.add(String.valueOf(command.getArguments().getCommand()));
            commands.add(r);
            return r;
        }

        @Override
        public void sync() {
            syncing = true;
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (closesOnInterrupt && Thread.currentThread().isInterrupted()) {
                // what a virtual thread's socket read does when its thread is interrupted
                throw new JedisConnectionException(new SocketException("Closed by interrupt"));
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
