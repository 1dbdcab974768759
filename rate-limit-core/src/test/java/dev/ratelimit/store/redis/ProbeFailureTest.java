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
import dev.ratelimit.Verdict;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

import static dev.ratelimit.Fixtures.clock;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A store call that fails with an Error rather than an exception (a class of another version, a
 * stack overflow) must still tell the circuit breaker: its one probe would otherwise stay taken and
 * the store never call Redis again. Redis here is a fake client whose script calls answer as told.
 */
class ProbeFailureTest {
    private static final List<Long> ALLOWED = List.of(0L, 0L, 9L, 1_000L, 0L);

    /** A client whose script calls do what {@link #next} says (also used by {@link StoreCallBookkeepingTest}). */
    static final class ScriptedRedis extends UnifiedJedis {
        volatile Supplier<Object> next = () -> ALLOWED;
        int calls;

        ScriptedRedis() {
            super(new NoConnections(), RedisProtocol.RESP2);
        }

        @Override
        public Object fcall(String name, List<String> keys, List<String> args) {
            calls++;
            return next.get();
        }

        @Override
        public Object evalsha(String sha1, List<String> keys, List<String> args) {
            calls++;
            return next.get();
        }
    }

    private final ManualClock clock = clock();
    private final ScriptedRedis redis = new ScriptedRedis();
    private final RedisStore store = RedisStore.builder().client(redis).clock(clock).failureMode(FailureMode.FAIL_CLOSED)
            .circuitBreaker(2, Duration.ofSeconds(1)).denialCache(false).pipelining(false).build();
    private final RateLimiter limiter = store.limiter(Limit.of("probe", Policy.fixedWindow(10, Duration.ofMinutes(1))));

    private void openTheBreaker() {
        redis.next = () -> {
            throw new JedisConnectionException(new SocketTimeoutException("Read timed out"));
        };
        limiter.tryAcquire("client");
        limiter.tryAcquire("client");
        assertThat(store.health()).isEqualTo(StoreHealth.CIRCUIT_OPEN);
        clock.advance(Duration.ofSeconds(2));
    }

    @Test
    void aProbeThatOverflowsTheStackReopensTheBreakerAndALaterProbeClosesIt() {
        openTheBreaker();
        redis.next = () -> {
            throw new StackOverflowError("deep");
        };
        assertThatThrownBy(() -> limiter.tryAcquire("client")).isInstanceOf(StackOverflowError.class);

        redis.next = () -> ALLOWED;
        assertThat(limiter.tryAcquire("client").source()).as("open again for a period").isEqualTo(Source.FAIL_CLOSED);
        clock.advance(Duration.ofSeconds(2));
        Decision probe = limiter.tryAcquire("client");
        assertThat(probe.source()).as("before, the probe stayed taken and Redis was never called again").isEqualTo(Source.STORE);
        assertThat(store.health()).isEqualTo(StoreHealth.UP);
    }

    @Test
    void aLinkageErrorFromTheClientIsAStoreFailureThatFollowsTheFailureMode() {
        redis.next = () -> {
            throw new NoSuchMethodError("'redis.clients.jedis.Response redis.clients.jedis.Pipeline.fcall()'");
        };
        Decision d = limiter.tryAcquire("client");
        assertThat(d.verdict()).isEqualTo(Verdict.STORE_UNAVAILABLE);
        assertThat(d.source()).isEqualTo(Source.FAIL_CLOSED);
        assertThat(store.health()).isEqualTo(StoreHealth.DEGRADED);

        openTheBreaker();
        redis.next = () -> {
            throw new NoClassDefFoundError("redis/clients/jedis/Pipeline");
        };
        assertThat(limiter.tryAcquire("client").source()).isEqualTo(Source.FAIL_CLOSED);
        redis.next = () -> ALLOWED;
        clock.advance(Duration.ofSeconds(2));
        assertThat(limiter.tryAcquire("client").source()).isEqualTo(Source.STORE);
    }

    @Test
    void anErrorThatPropagatesIsReportedToTheListenerAsAFailedCall() {
        List<String> seen = new java.util.ArrayList<>();
        RateLimitListener listener = new RateLimitListener() {
            @Override
            public void onStoreCall(long micros, boolean ok) {
                seen.add(ok ? "ok" : "failed");
            }

            @Override
            public void onStoreError(Throwable error) {
                seen.add(error.getClass().getSimpleName());
            }
        };
        RateLimiter watched = RedisStore.builder().client(redis).clock(clock).listener(listener).denialCache(false)
                .pipelining(false).build().limiter(Limit.of("probe", Policy.fixedWindow(10, Duration.ofMinutes(1))));
        redis.next = () -> {
            throw new StackOverflowError("deep");
        };

        assertThatThrownBy(() -> watched.tryAcquire("client")).isInstanceOf(StackOverflowError.class);
        assertThat(seen).as("ratelimit_store_errors counts it, as the README says").containsExactly("failed", "StackOverflowError");
    }
}
