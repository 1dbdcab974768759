package dev.ratelimit.store.redis;

import dev.ratelimit.Decision;
import dev.ratelimit.FailureMode;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import dev.ratelimit.StoreHealth;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static dev.ratelimit.Fixtures.clock;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a failed store call tells the listener and the circuit breaker: how long it took (on the
 * store's clock) and whether it counts as a failing Redis. Redis here is a fake client whose script
 * calls answer as told ({@link ProbeFailureTest.ScriptedRedis}).
 */
class StoreCallBookkeepingTest {
    private static final List<Long> ALLOWED = List.of(0L, 0L, 9L, 1_000L, 0L);

    private final ManualClock clock = clock();
    private final ProbeFailureTest.ScriptedRedis redis = new ProbeFailureTest.ScriptedRedis();
    private final List<Long> failedCallMicros = new CopyOnWriteArrayList<>();
    private final List<Long> okCallMicros = new CopyOnWriteArrayList<>();
    private final List<String> healthChanges = new CopyOnWriteArrayList<>();
    private final RateLimitListener listener = new RateLimitListener() {
        @Override
        public void onStoreCall(long micros, boolean ok) {
            (ok ? okCallMicros : failedCallMicros).add(micros);
        }

        @Override
        public void onHealthChange(StoreHealth previous, StoreHealth current) {
            healthChanges.add(previous + "->" + current);
        }
    };

    private RedisStore store(int breakerFailures) {
        return RedisStore.builder().client(redis).clock(clock).listener(listener).failureMode(FailureMode.FAIL_CLOSED)
                .circuitBreaker(breakerFailures, Duration.ofSeconds(1)).denialCache(false).pipelining(false).build();
    }

    private static RateLimiter limiter(RedisStore store) {
        return store.limiter(Limit.of("calls", Policy.fixedWindow(10, Duration.ofMinutes(1))));
    }

    /** Each call takes {@code millis} on the store's clock, then fails with {@code failure}. */
    private void eachCallTakes(long millis, Throwable failure) {
        redis.next = () -> {
            clock.advance(Duration.ofMillis(millis));
            if (failure instanceof Error e) {
                throw e;
            }
            throw (RuntimeException) failure;
        };
    }

    @Test
    void aFailedCallIsReportedWithTheTimeItTookOnTheStoresClock() {
        RateLimiter limiter = limiter(store(100));

        // A timeout: not sent again.
        eachCallTakes(7, new JedisConnectionException(new SocketTimeoutException("Read timed out")));
        assertThat(limiter.tryAcquire("client").source()).isEqualTo(Source.FAIL_CLOSED);
        // A connection that broke fast: sent twice more (each on a connection that broke too); timed over the three.
        eachCallTakes(3, new JedisConnectionException("Connection reset"));
        assertThat(limiter.tryAcquire("client").source()).isEqualTo(Source.FAIL_CLOSED);
        // An Error that propagates is a failed call first.
        eachCallTakes(5, new StackOverflowError("deep"));
        assertThatThrownBy(() -> limiter.tryAcquire("client")).isInstanceOf(StackOverflowError.class);

        assertThat(failedCallMicros).containsExactly(7_000L, 9_000L, 5_000L);
    }

    @Test
    void aSuccessfulCallIsReportedWithTheTimeItTookOnTheStoresClock() {
        RateLimiter limiter = limiter(store(100));
        redis.next = () -> {
            clock.advance(Duration.ofMillis(4));
            return ALLOWED;
        };
        assertThat(limiter.tryAcquire("client").source()).isEqualTo(Source.STORE);
        assertThat(okCallMicros).containsExactly(4_000L);
    }

    @Test
    void aTryAgainReplyDuringAReshardingIsNotAFailingRedis() {
        RedisStore store = store(2);
        RateLimiter limiter = limiter(store);
        eachCallTakes(1, new JedisConnectionException(new SocketTimeoutException("Read timed out")));
        limiter.tryAcquire("client");
        assertThat(store.health()).isEqualTo(StoreHealth.DEGRADED);

        // The master answered: the call fails (by the failure mode), but Redis is there.
        eachCallTakes(1, new JedisDataException("TRYAGAIN Multiple keys request during rehashing of slot"));
        Decision d = limiter.tryAcquire("client");
        assertThat(d.source()).isEqualTo(Source.FAIL_CLOSED);
        assertThat(store.health()).as("a success for the breaker").isEqualTo(StoreHealth.UP);
        for (int i = 0; i < 3; i++) {
            limiter.tryAcquire("client");
        }
        assertThat(store.health()).as("more than the breaker's 2 failures, none of them counted").isEqualTo(StoreHealth.UP);

        redis.next = () -> ALLOWED;
        assertThat(limiter.tryAcquire("client").source()).isEqualTo(Source.STORE);
        assertThat(healthChanges).containsExactly("UP->DEGRADED", "DEGRADED->UP");
    }

    /**
     * A call answered at its third send counts as sent then: a call of another decision refused between
     * its second and third sends does not make the breaker take the answer for one from before Redis
     * stopped answering (found by a review: the second send's time was reported).
     */
    @Test
    void aCallAnsweredAtItsThirdSendIsReportedWithThatSendsTime() {
        RedisStore store = store(100);
        RateLimiter limiter = limiter(store);
        eachCallTakes(1, new JedisConnectionException(new SocketTimeoutException("Read timed out"))); // DEGRADED; orders nothing
        assertThat(limiter.tryAcquire("a").source()).isEqualTo(Source.FAIL_CLOSED);
        assertThat(store.health()).isEqualTo(StoreHealth.DEGRADED);

        int[] sends = {0};
        redis.next = () -> {
            clock.advance(Duration.ofMillis(1));
            int send = ++sends[0];
            if (send == 2) {
                // Between a's second and third sends, b is sent, and each of its sends is refused.
                assertThat(limiter.tryAcquire("b").source()).isEqualTo(Source.FAIL_CLOSED);
            }
            if (send <= 5) {
                throw new JedisConnectionException("Connection reset");
            }
            return ALLOWED;
        };

        assertThat(limiter.tryAcquire("a").source()).isEqualTo(Source.STORE);
        assertThat(sends[0]).isEqualTo(6);
        assertThat(store.health()).as("a's answered send was made after b's refused ones").isEqualTo(StoreHealth.UP);
    }
}
