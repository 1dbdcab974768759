package dev.ratelimit;

import dev.ratelimit.store.memory.MemoryStore;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Waiting for quota: sleeps of exactly the refusals' waits, a deadline, and no wait for what can never pass. */
class WaiterTest {
    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final List<Duration> sleeps = new ArrayList<>();
    private final Waiter waiter = Waiter.of(clock, time -> {
        sleeps.add(time);
        clock.advance(time);
    });
    private final MemoryStore store = MemoryStore.builder().clock(clock).build();

    @Test
    void sleepsEachRefusalsRetryAfterAndReturnsTheDecisionThatAllowed() throws InterruptedException {
        RateLimiter partner = store.limiter(Limit.of("partner", TokenBucket.perSecond(2, 1)));

        List<Decision> decisions = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            decisions.add(waiter.tryAcquire(partner, "customer-42", Duration.ofMinutes(1)));
        }

        assertThat(decisions).allMatch(Decision::allowed);
        assertThat(decisions).extracting(Decision::remaining).containsExactly(1L, 0L, 0L, 0L);
        assertThat(sleeps).as("the burst of 2 at once, then one a second").containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(1));
    }

    @Test
    void withASlidingLogNoSecondEverSeesMoreThanThePartnersLimit() throws InterruptedException {
        RateLimiter partner = store.limiter(Limit.of("partner", Policy.slidingWindowLog(10, Duration.ofSeconds(1))));
        List<Long> allowedAt = new ArrayList<>();
        for (int i = 0; i < 35; i++) {
            assertThat(waiter.tryAcquire(partner, "customer-42", Duration.ofSeconds(30)).allowed()).isTrue();
            allowedAt.add(clock.nowMicros());
            if (i % 7 == 3) {
                clock.advance(Duration.ofMillis(130)); // the job's own work between calls
            }
        }

        for (int i = 10; i < allowedAt.size(); i++) {
            assertThat(allowedAt.get(i) - allowedAt.get(i - 10)).as("call %d and the 10th before it", i).isGreaterThanOrEqualTo(1_000_000);
        }
    }

    @Test
    void returnsTheRefusalAtOnceWhenItsWaitWouldEndAfterMaxWait() throws InterruptedException {
        RateLimiter login = store.limiter(Limit.of("login", Policy.fixedWindow(1, Duration.ofMinutes(1))));
        waiter.tryAcquire(login, "ip:203.0.113.7", Duration.ZERO);

        Decision d = waiter.tryAcquire(login, "ip:203.0.113.7", Duration.ofSeconds(59));

        assertThat(d.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(d.retryAfter()).hasValue(Duration.ofMinutes(1));
        assertThat(sleeps).as("no sleep that could not end in success").isEmpty();
        assertThat(waiter.tryAcquire(login, "ip:203.0.113.7", Duration.ofMinutes(1)).allowed()).as("a wait that fits exactly").isTrue();
        assertThat(sleeps).containsExactly(Duration.ofMinutes(1));
    }

    @Test
    void aRequestThatCanNeverPassReturnsAtOnceHoweverLongItMayWait() throws InterruptedException {
        RateLimiter partner = store.limiter(Limit.of("partner", TokenBucket.perSecond(2, 1)));

        Decision d = waiter.tryAcquire(partner, "customer-42", 3, Duration.ofDays(365));

        assertThat(d.verdict()).isEqualTo(Verdict.COST_EXCEEDS_LIMIT);
        assertThat(sleeps).isEmpty();
        assertThat(partner.tryAcquire("customer-42", 2).allowed()).as("it took nothing").isTrue();
    }

    @Test
    void whileTheStoreIsUnavailableItWaitsTheHintsUntilMaxWait() throws InterruptedException {
        Policy policy = Policy.fixedWindow(5, Duration.ofMinutes(1));
        AtomicInteger attempts = new AtomicInteger();
        RateLimiter failingClosed = new RateLimiter() {
            @Override
            public Limit limit() {
                return Limit.of("partner", policy);
            }

            @Override
            public Decision tryAcquire(String key, long cost) {
                attempts.incrementAndGet();
                return new Decision(Verdict.STORE_UNAVAILABLE, Source.FAIL_CLOSED, policy, 5, 0, 0, 1_000_000);
            }
        };

        Decision d = waiter.tryAcquire(failingClosed, "customer-42", Duration.ofMillis(3_500));

        assertThat(d.verdict()).isEqualTo(Verdict.STORE_UNAVAILABLE);
        assertThat(attempts).as("at 0, 1, 2 and 3 s; a fifth would come after 3.5 s").hasValue(4);
        assertThat(sleeps).hasSize(3);
    }

    @Test
    void anInterruptedSleepEndsTheWaitHavingTakenNothing() throws InterruptedException {
        RateLimiter login = store.limiter(Limit.of("login", Policy.fixedWindow(1, Duration.ofMinutes(1))));
        waiter.tryAcquire(login, "ip:203.0.113.7", Duration.ZERO);
        AtomicInteger attempts = new AtomicInteger();
        RateLimiter counted = counting(login, attempts);
        Waiter interrupted = Waiter.of(clock, time -> {
            throw new InterruptedException();
        });

        assertThatThrownBy(() -> interrupted.tryAcquire(counted, "ip:203.0.113.7", Duration.ofMinutes(5)))
                .isInstanceOf(InterruptedException.class);
        assertThat(attempts).as("the refused attempt, then the sleep that was interrupted").hasValue(1);
        clock.advance(Duration.ofMinutes(1));
        assertThat(login.tryAcquire("ip:203.0.113.7").allowed()).as("the new window's one request: nothing was taken").isTrue();
    }

    @Test
    void anAlreadyInterruptedThreadTakesNoQuotaEvenWhenThereIsSome() {
        RateLimiter partner = store.limiter(Limit.of("partner", TokenBucket.perSecond(2, 1)));
        AtomicInteger attempts = new AtomicInteger();

        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> waiter.tryAcquire(counting(partner, attempts), "customer-42", Duration.ofMinutes(1)))
                .isInstanceOf(InterruptedException.class).hasMessage("interrupted while waiting for quota of partner");

        assertThat(Thread.interrupted()).as("the interrupt was consumed by the exception").isFalse();
        assertThat(attempts).hasValue(0);
        assertThat(partner.tryAcquire("customer-42").remaining()).as("the burst is whole").isEqualTo(1);
    }

    /** {@code limiter}, counting its attempts. */
    private static RateLimiter counting(RateLimiter limiter, AtomicInteger attempts) {
        return new RateLimiter() {
            @Override
            public Limit limit() {
                return limiter.limit();
            }

            @Override
            public Decision tryAcquire(String key, long cost) {
                attempts.incrementAndGet();
                return limiter.tryAcquire(key, cost);
            }
        };
    }

    @Test
    void refusesANegativeMaxWaitAndMissingParts() {
        RateLimiter login = store.limiter(Limit.of("login", Policy.fixedWindow(1, Duration.ofMinutes(1))));

        assertThatThrownBy(() -> waiter.tryAcquire(login, "k", Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("maxWait must not be negative, was PT-1S");
        assertThatThrownBy(() -> waiter.tryAcquire(null, "k", Duration.ZERO)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> Waiter.of(null, time -> { })).isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("clock: must not be null");
        assertThatThrownBy(() -> Waiter.of(clock, null)).isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("sleeper: must not be null");
    }

    @Test
    void threadsWaitingOnOneKeyOnTheSystemClockAreAllServed() throws Exception {
        // 1 token every 5 ms after a burst of 2: 20 permits for 4 threads come within about 90 ms.
        MemoryStore real = MemoryStore.builder().build();
        RateLimiter partner = real.limiter(Limit.of("partner", new TokenBucket(2, 1, Duration.ofMillis(5))));
        Waiter system = Waiter.system();
        ConcurrentLinkedQueue<Decision> decisions = new ConcurrentLinkedQueue<>();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 5; i++) {
                        decisions.add(system.tryAcquire(partner, "customer-42", Duration.ofMinutes(1)));
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }

        assertThat(decisions).hasSize(20).allMatch(Decision::allowed);
    }
}
