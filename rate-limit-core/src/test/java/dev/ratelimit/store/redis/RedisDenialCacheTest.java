package dev.ratelimit.store.redis;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import dev.ratelimit.Verdict;
import dev.ratelimit.testing.RedisServer;
import dev.ratelimit.testing.Resp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Once Redis has denied a client until T, the same instance answers that client's requests of the
 * same cost until T without calling Redis (counted with {@code INFO commandstats}), until Redis
 * allows one of its requests.
 */
class RedisDenialCacheTest {
    private static final Limit LIMIT = Limit.of("denied", Policy.tokenBucket(2, 1, Duration.ofSeconds(10)));
    private static RedisServer redis;
    private final ManualClock clock = new ManualClock(Instant.parse("2026-03-02T10:00:00Z"));

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @Test
    void aDeniedClientCostsRedisNothingUntilItCouldPass() {
        AtomicInteger storeCalls = new AtomicInteger();
        RateLimitListener listener = new RateLimitListener() {
            @Override
            public void onStoreCall(long micros, boolean ok) {
                assertThat(ok).isTrue();
                storeCalls.incrementAndGet();
            }
        };
        try (RedisStore store = RedisStore.builder().url(redis.url()).clock(clock).listener(listener).build()) {
            RateLimiter limiter = store.limiter(LIMIT);
            limiter.tryAcquire("abuser", 2);
            Decision denied = limiter.tryAcquire("abuser", 1);
            assertThat(denied.source()).isEqualTo(Source.STORE);
            assertThat(denied.verdict()).isEqualTo(Verdict.REJECTED);
            long wait = denied.retryAfterMicros();
            assertThat(wait).isPositive().isLessThanOrEqualTo(10_000_000);

            long calls = redis.decisionCalls();
            for (int i = 0; i < 50; i++) {
                Decision cached = limiter.tryAcquire("abuser", 1);
                assertThat(cached.source()).isEqualTo(Source.DENIAL_CACHE);
                assertThat(cached.verdict()).isEqualTo(Verdict.REJECTED);
                assertThat(cached.retryAfterMicros()).isEqualTo(wait);
                assertThat(cached.policy()).isEqualTo(denied.policy());
            }
            clock.advance(Duration.ofSeconds(1));
            Decision later = limiter.tryAcquire("abuser", 1);
            assertThat(later.source()).isEqualTo(Source.DENIAL_CACHE);
            assertThat(later.retryAfterMicros()).as("counts down").isEqualTo(wait - 1_000_000);
            assertThat(later.resetAfterMicros()).isEqualTo(denied.resetAfterMicros() - 1_000_000);
            assertThat(redis.decisionCalls()).as("script calls while denied").isEqualTo(calls);

            assertThat(limiter.tryAcquire("someone-else").source()).as("other clients still go to Redis").isEqualTo(Source.STORE);
            assertThat(redis.decisionCalls()).isEqualTo(calls + 1);

            clock.advanceMicros(wait);
            Decision asked = limiter.tryAcquire("abuser", 1);
            assertThat(asked.source()).as("after T the cache asks Redis again").isEqualTo(Source.STORE);
            assertThat(redis.decisionCalls()).isEqualTo(calls + 2);
            assertThat(storeCalls.get()).as("store calls heard by the listener").isEqualTo(4);
        }
    }

    @Test
    void onTheExactMicrosecondADenialEndsTheCacheAsksRedisAgain() {
        try (RedisStore store = RedisStore.builder().url(redis.url()).clock(clock).build()) {
            RateLimiter limiter = store.limiter(LIMIT);
            limiter.tryAcquire("edge", 2);
            Decision denied = limiter.tryAcquire("edge", 1);
            assertThat(denied.source()).isEqualTo(Source.STORE);
            long wait = denied.retryAfterMicros();

            clock.advanceMicros(wait - 1);
            Decision before = limiter.tryAcquire("edge", 1);
            assertThat(before.source()).as("1 us before the end").isEqualTo(Source.DENIAL_CACHE);
            assertThat(before.retryAfterMicros()).isEqualTo(1);

            long calls = redis.decisionCalls();
            clock.advanceMicros(1);
            Decision atTheEnd = limiter.tryAcquire("edge", 1);
            assertThat(atTheEnd.source()).as("the cache holds a denial until sentAt + retryAfter, not at it")
                    .isEqualTo(Source.STORE);
            assertThat(redis.decisionCalls()).isEqualTo(calls + 1);
        }
    }

    @Test
    void aLocalClockSteppedBackDoesNotStretchADenialBeyondWhatRedisSaid() {
        // Redis decides on its own clock; the local clock only times the cache. Stepped back an hour
        // (a custom Clock following a wall clock that NTP corrected), it must not keep the client
        // refused for that hour on top of the wait Redis gave.
        try (RedisStore store = RedisStore.builder().url(redis.url()).clock(clock).build()) {
            RateLimiter limiter = store.limiter(LIMIT);
            limiter.tryAcquire("stepped", 2);
            Decision denied = limiter.tryAcquire("stepped", 1);
            assertThat(denied.source()).isEqualTo(Source.STORE);
            long wait = denied.retryAfterMicros();

            clock.advance(Duration.ofHours(-1));
            Decision after = limiter.tryAcquire("stepped", 1);
            assertThat(after.verdict()).isEqualTo(Verdict.REJECTED);
            assertThat(after.retryAfterMicros()).as("never longer than Redis' own wait").isLessThanOrEqualTo(wait);
            assertThat(after.resetAfterMicros()).isLessThanOrEqualTo(denied.resetAfterMicros());
        }
    }

    @Test
    void aSmallerCostIsStillAskedOfRedis() {
        Limit limit = Limit.of("denied-cost", Policy.fixedWindow(3, Duration.ofDays(400)));
        try (RedisStore store = RedisStore.builder().url(redis.url()).clock(clock).build()) {
            RateLimiter limiter = store.limiter(limit);
            limiter.tryAcquire("client", 2);
            assertThat(limiter.tryAcquire("client", 2).source()).isEqualTo(Source.STORE);
            assertThat(limiter.tryAcquire("client", 2).source()).isEqualTo(Source.DENIAL_CACHE);
            assertThat(limiter.tryAcquire("client", 4).verdict()).isEqualTo(Verdict.COST_EXCEEDS_LIMIT);
            Decision smaller = limiter.tryAcquire("client", 1);
            assertThat(smaller.source()).isEqualTo(Source.STORE);
            assertThat(smaller.verdict()).isEqualTo(Verdict.ALLOWED);
        }
    }

    @Test
    void aLargerCostIsAskedOfRedisAndToldItsOwnLongerWait() {
        try (RedisStore store = RedisStore.builder().url(redis.url()).clock(clock).timeFromClock(true).build()) {
            RateLimiter limiter = store.limiter(LIMIT); // 2 tokens, 1 back every 10 s
            limiter.tryAcquire("client", 2);
            assertThat(limiter.tryAcquire("client", 1).retryAfterMicros()).isEqualTo(10_000_000);

            Decision larger = limiter.tryAcquire("client", 2);
            assertThat(larger.source()).isEqualTo(Source.STORE);
            assertThat(larger.retryAfterMicros()).as("two tokens: 20 s, not the one token's 10 s").isEqualTo(20_000_000);
            Decision again = limiter.tryAcquire("client", 2);
            assertThat(again.source()).isEqualTo(Source.DENIAL_CACHE);
            assertThat(again.retryAfterMicros()).isEqualTo(20_000_000);
            long calls = redis.decisionCalls();
            for (int i = 0; i < 10; i++) {
                assertThat(limiter.tryAcquire("client", 1 + i % 2).source()).as("both costs cached").isEqualTo(Source.DENIAL_CACHE);
            }
            assertThat(redis.decisionCalls()).isEqualTo(calls);
        }
    }

    @Test
    void aRequestRedisAllowsDropsTheClientsCachedDenialWhoseNumbersItMadeStale() {
        Limit limit = Limit.of("denied-then-spent", Policy.fixedWindow(3, Duration.ofDays(400)));
        try (RedisStore store = RedisStore.builder().url(redis.url()).clock(clock).build()) {
            RateLimiter limiter = store.limiter(limit);
            limiter.tryAcquire("client", 2);
            assertThat(limiter.tryAcquire("client", 2).remaining()).isEqualTo(1);
            assertThat(limiter.tryAcquire("client", 2).source()).isEqualTo(Source.DENIAL_CACHE);
            assertThat(limiter.tryAcquire("client", 1).verdict()).isEqualTo(Verdict.ALLOWED);

            Decision after = limiter.tryAcquire("client", 2);
            assertThat(after.source()).isEqualTo(Source.STORE);
            assertThat(after.verdict()).isEqualTo(Verdict.REJECTED);
            assertThat(after.remaining()).as("not the cached 1").isZero();
        }
    }

    @Test
    void switchedOffEveryRequestGoesToRedis() {
        try (RedisStore store = RedisStore.builder().url(redis.url()).clock(clock).denialCache(false).build()) {
            RateLimiter limiter = store.limiter(LIMIT);
            limiter.tryAcquire("no-cache", 2);
            long calls = redis.decisionCalls();
            for (int i = 0; i < 10; i++) {
                Decision d = limiter.tryAcquire("no-cache");
                assertThat(d.source()).isEqualTo(Source.STORE);
                assertThat(d.verdict()).isEqualTo(Verdict.REJECTED);
            }
            assertThat(redis.decisionCalls()).isEqualTo(calls + 10);
        }
    }
}
