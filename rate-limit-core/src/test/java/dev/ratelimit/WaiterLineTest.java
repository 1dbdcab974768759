package dev.ratelimit;

import dev.ratelimit.store.memory.MemoryStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Threads waiting through one waiter on one key take turns: the one whose turn it is sleeps while the
 * others wait in line without calling the store; calls that find nobody waiting do not queue. Sleeps here block on a gate the test opens, and
 * advance the manual clock when they end, so the test decides when each wait is over.
 */
class WaiterLineTest {
    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final Semaphore gate = new Semaphore(0);
    private final Waiter waiter = Waiter.of(clock, time -> {
        gate.acquire();
        clock.advance(time);
    });
    private final RateLimiter partner = MemoryStore.builder().clock(clock).build()
            .limiter(Limit.of("partner", TokenBucket.perSecond(1, 1)));
    private final AtomicInteger storeCalls = new AtomicInteger();
    private final RateLimiter counted = WaiterTest.counting(partner, storeCalls);
    private final Map<String, Object> outcomes = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<String> served = new ConcurrentLinkedQueue<>();
    private final List<Thread> threads = new ArrayList<>();

    @AfterEach
    void stopThreads() throws InterruptedException {
        gate.release(100);
        for (Thread t : threads) {
            t.interrupt();
            t.join(10_000);
        }
    }

    @Test
    void threadsOnOneKeyAreServedInTheOrderTheyCameWithTwoStoreCallsAPermit() {
        assertThat(partner.tryAcquire("customer-42").allowed()).as("the bucket's one token, taken before").isTrue();

        waitFor("first", Duration.ofMinutes(1));
        await().until(gate::hasQueuedThreads); // refused, and sleeping until the token is back
        for (String name : List.of("second", "third", "fourth")) {
            Thread t = waitFor(name, Duration.ofMinutes(1));
            await().until(() -> t.getState() == Thread.State.TIMED_WAITING); // in line, behind the others
        }
        assertThat(storeCalls).as("only the first has asked the store").hasValue(1);

        for (int permit = 1; permit <= 4; permit++) {
            gate.release();
            int expected = permit;
            await().until(() -> served.size() == expected);
        }

        assertThat(served).containsExactly("first", "second", "third", "fourth");
        assertThat(outcomes.values()).allMatch(d -> d instanceof Decision decision && decision.allowed());
        assertThat(storeCalls).as("per permit: the refusal that told the wait, then the attempt after it").hasValue(8);
    }

    @Test
    void aThreadWhoseTurnDoesNotComeByMaxWaitMakesOneAttemptAndReturnsIt() {
        assertThat(partner.tryAcquire("customer-42").allowed()).isTrue();
        waitFor("first", Duration.ofMinutes(1));
        await().until(gate::hasQueuedThreads);

        waitFor("impatient", Duration.ofMillis(50));
        await().until(() -> outcomes.containsKey("impatient"));

        assertThat(outcomes.get("impatient")).isInstanceOfSatisfying(Decision.class,
                d -> assertThat(d.verdict()).isEqualTo(Verdict.REJECTED));
        assertThat(storeCalls).as("the first's refusal, and the impatient one's single attempt").hasValue(2);
        gate.release();
        await().until(() -> served.contains("first"));
        assertThat(storeCalls).hasValue(3);
    }

    @Test
    void aThreadInterruptedInLineTakesNothingAndLeavesTheLine() {
        assertThat(partner.tryAcquire("customer-42").allowed()).isTrue();
        waitFor("first", Duration.ofMinutes(1));
        await().until(gate::hasQueuedThreads);
        Thread cancelled = waitFor("cancelled", Duration.ofMinutes(1));
        await().until(() -> cancelled.getState() == Thread.State.TIMED_WAITING);
        Thread last = waitFor("last", Duration.ofMinutes(1));
        await().until(() -> last.getState() == Thread.State.TIMED_WAITING);

        cancelled.interrupt();
        await().until(() -> outcomes.containsKey("cancelled"));
        assertThat(outcomes.get("cancelled")).isInstanceOfSatisfying(InterruptedException.class,
                e -> assertThat(e).hasMessage("interrupted while waiting for quota of partner"));

        // One sleep at a time: "first" records itself after its call returns, by when "last" has its turn,
        // so with both sleeps allowed at once "last" can record itself first.
        for (int permit = 1; permit <= 2; permit++) {
            gate.release();
            int expected = permit;
            await().until(() -> served.size() == expected);
        }
        assertThat(served).containsExactly("first", "last");
        assertThat(storeCalls).as("none by the cancelled thread").hasValue(4);
    }

    @Test
    void callsThatFindNobodyWaitingAttemptAtOnceTogetherWithoutQueueing() throws Exception {
        CountDownLatch bothInTheStore = new CountDownLatch(2);
        RateLimiter slow = new RateLimiter() {
            @Override
            public Limit limit() {
                return partner.limit();
            }

            @Override
            public Decision tryAcquire(String key, long cost) {
                bothInTheStore.countDown();
                try {
                    // A slow store call: the other caller must get in meanwhile, not wait in line.
                    if (!bothInTheStore.await(10, TimeUnit.SECONDS)) {
                        throw new AssertionError("the calls were serialized");
                    }
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                return new Decision(Verdict.ALLOWED, Source.STORE, partner.limit().policies().get(0), 1, 0, 0, 0);
            }
        };
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<Decision> a = pool.submit(() -> waiter.tryAcquire(slow, "customer-42", Duration.ofMinutes(1)));
            Future<Decision> b = pool.submit(() -> waiter.tryAcquire(slow, "customer-42", Duration.ofMinutes(1)));

            assertThat(a.get(20, TimeUnit.SECONDS).allowed()).isTrue();
            assertThat(b.get(20, TimeUnit.SECONDS).allowed()).isTrue();
        } finally {
            pool.shutdownNow();
        }
    }

    /** Starts a thread named {@code name} that waits for one permit and records what it got. */
    private Thread waitFor(String name, Duration maxWait) {
        Thread t = new Thread(() -> {
            try {
                Decision d = waiter.tryAcquire(counted, "customer-42", maxWait);
                outcomes.put(name, d);
                if (d.allowed()) {
                    served.add(name);
                }
            } catch (InterruptedException e) {
                outcomes.put(name, e);
            }
        }, name);
        threads.add(t);
        t.start();
        return t;
    }
}
