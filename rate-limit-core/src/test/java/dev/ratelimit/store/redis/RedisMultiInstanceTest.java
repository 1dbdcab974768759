package dev.ratelimit.store.redis;

import dev.ratelimit.Clock;
import dev.ratelimit.Decision;
import dev.ratelimit.InvalidConfigurationException;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import dev.ratelimit.Verdict;
import dev.ratelimit.config.RateLimitConfig;
import dev.ratelimit.testing.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Two stores on one Redis are two application instances: what they share (one limit, whatever
 * instance a client reaches), what they keep apart (limits that differ in name, algorithm, window or rate, prefix or
 * client-key secret), a rolling deploy that changes a limit, the per-instance denial cache, and local
 * clocks that disagree with each other and with Redis (decisions use Redis TIME).
 */
class RedisMultiInstanceTest {
    private static final Duration HOUR = Duration.ofHours(1);
    private static RedisServer redis;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    private static RedisStore.Builder instance() {
        return RedisStore.builder().url(redis.url()).readTimeout(Duration.ofSeconds(2));
    }

    @Test
    void instancesShareALimitAndKeepApartLimitsThatDifferInNameAlgorithmWindowPrefixOrSecret() {
        try (RedisStore a = instance().build(); RedisStore b = instance().build();
             RedisStore otherApp = instance().keyPrefix("billing:").build();
             RedisStore keyed = instance().clientKeySecret("0123456789abcdef-fleet").build()) {
            Limit login = Limit.of("login", Policy.fixedWindow(5, HOUR));
            assertThat(a.limiter(login).tryAcquire("c", 3).remaining()).isEqualTo(2);
            assertThat(b.limiter(login).tryAcquire("c").remaining()).as("one quota, either instance").isEqualTo(1);

            // Each of these is separate state for the same client id: it starts with the full quota.
            a.limiter(Limit.of("ep", Policy.fixedWindow(5, HOUR))).tryAcquire("c", 5);
            List<Limit> separate = List.of(
                    Limit.of("ep2", Policy.fixedWindow(5, HOUR)),                                   // another endpoint
                    Limit.of("ep", Policy.fixedWindow(5, Duration.ofMinutes(30))),                  // another window
                    Limit.of("ep", Policy.slidingWindowCounter(5, HOUR)),                           // same numbers,
                    Limit.of("ep", Policy.slidingWindowLog(5, HOUR)),                               // other algorithms
                    Limit.of("ep", Policy.tokenBucket(5, 5, HOUR)),
                    Limit.of("ep", Policy.gcra(5, HOUR, 5)));
            for (Limit limit : separate) {
                Decision d = b.limiter(limit).tryAcquire("c");
                assertThat(d.remaining()).as("%s", limit).isEqualTo(d.limit() - 1);
            }
            // Another tier's number, or a cap added: the 5 spent count under it.
            assertThat(b.limiter(Limit.of("ep", Policy.fixedWindow(6, HOUR))).tryAcquire("c").remaining()).isZero();
            Decision capped = b.limiter(Limit.of("ep", Policy.fixedWindow(50, Duration.ofDays(1)), Policy.fixedWindow(6, HOUR)))
                    .tryAcquire("c");
            assertThat(capped.verdict()).isEqualTo(Verdict.REJECTED);
            assertThat(capped.policy()).isEqualTo(Policy.fixedWindow(6, HOUR));
            Limit ep = Limit.of("ep", Policy.fixedWindow(5, HOUR));
            assertThat(otherApp.limiter(ep).tryAcquire("c").remaining()).as("another prefix").isEqualTo(4);
            assertThat(keyed.limiter(ep).tryAcquire("c").remaining()).as("a secret on one instance only").isEqualTo(4);
            assertThat(b.limiter(ep).tryAcquire("c").verdict()).isEqualTo(Verdict.REJECTED);
        }
    }

    @Test
    void stateFollowsTheKeyTextAndNoPrefixAndLimitNameSpellAnothers() throws Exception {
        // An endpoint named "default" would be one limit with the unmatched requests' (same name and
        // policies, one key): the configuration refuses it when unmatched requests are limited.
        assertThatThrownBy(() -> RateLimitConfig.fromJson(new ByteArrayInputStream("""
                {"defaultTier": "free", "endpoints": [{"method": "GET", "path": "/api/default", "name": "default"}],
                 "unmatched": {"algorithm": "fixed_window", "limit": 5, "window": "1h"},
                 "tiers": {"free": {"default": {"algorithm": "fixed_window", "limit": 5, "window": "1h"}}}}
                """.getBytes(StandardCharsets.UTF_8)), "inline"))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("tiers.free.default");
        // README "Keys": "rl:" + "shop-login" would be "rl:shop-" + "login", so a prefix must end with ':',
        // which limit names cannot hold; then one prefix and name never spell another's.
        assertThatThrownBy(() -> instance().keyPrefix("rl:shop-")).isInstanceOf(InvalidConfigurationException.class);
        Limit shopLogin = Limit.of("shop-login", Policy.fixedWindow(5, HOUR));
        Limit shop = Limit.of("shop", Policy.fixedWindow(5, HOUR));
        Limit login = Limit.of("login", Policy.fixedWindow(5, HOUR));
        try (RedisStore rl = instance().keyPrefix("rl:").build();
             RedisStore shopColon = instance().keyPrefix("rl:shop:").build()) {
            rl.limiter(shopLogin).tryAcquire("p", 5);
            rl.limiter(shop).tryAcquire("p", 5);
            assertThat(shopColon.limiter(login).tryAcquire("p").remaining()).isEqualTo(4);
        }
    }

    @Test
    void duringARollingDeployBothVersionsReadOneStateEachByItsOwnNumbers() {
        try (RedisStore oldVersion = instance().build(); RedisStore newVersion = instance().build()) {
            Limit old = Limit.of("scan", Policy.tokenBucket(10, 1, HOUR));
            RateLimiter before = oldVersion.limiter(old);
            assertThat(before.tryAcquire("r", 10).allowed()).isTrue();
            Decision denied = before.tryAcquire("r");
            assertThat(denied.source()).isEqualTo(Source.STORE);
            assertThat(denied.verdict()).isEqualTo(Verdict.REJECTED);

            // A bigger bucket at the same rate counts the 10 spent; another algorithm starts fresh. No error either way.
            Decision bigger = newVersion.limiter(Limit.of("scan", Policy.tokenBucket(20, 1, HOUR))).tryAcquire("r");
            Decision gcra = newVersion.limiter(Limit.of("scan", Policy.gcra(1, HOUR, 10))).tryAcquire("r");
            assertThat(List.of(bigger, gcra)).allSatisfy(d -> {
                assertThat(d.source()).isEqualTo(Source.STORE);
                assertThat(d.verdict()).isEqualTo(Verdict.ALLOWED);
            });
            assertThat(bigger.remaining()).isEqualTo(20 - 11);
            assertThat(gcra.remaining()).isEqualTo(9);
            // The old version still enforces its own limit, now over the 11 both spent.
            assertThat(oldVersion.limiter(old).tryAcquire("r").source()).isEqualTo(Source.DENIAL_CACHE);
            Decision stillOld;
            try (RedisStore uncached = instance().denialCache(false).build()) {
                stillOld = uncached.limiter(old).tryAcquire("r");
            }
            assertThat(stillOld.source()).isEqualTo(Source.STORE);
            assertThat(stillOld.verdict()).isEqualTo(Verdict.REJECTED);
            assertThat(stillOld.retryAfterMicros()).as("two tokens to refill now, not one").isGreaterThan(denied.retryAfterMicros());
        }
    }

    @Test
    void aCachedDenialEndsNoLaterThanAnotherInstanceIsAdmittedWhateverTheLocalClocks() {
        Clock real = Clock.system();
        long aheadMicros = Duration.ofHours(3).toNanos() / 1000;
        try (RedisStore a = instance().clock(() -> real.nowMicros() + aheadMicros).build();
             RedisStore b = instance().clock(() -> real.nowMicros() - 2 * aheadMicros).build()) {
            Limit limit = Limit.of("window", Policy.fixedWindow(2, Duration.ofMillis(300)));
            RateLimiter onA = a.limiter(limit);
            RateLimiter onB = b.limiter(limit);
            // A client that spends the window on A and is denied there (a new client if the window turned in between).
            String client = null;
            for (int i = 0; client == null; i++) {
                assertThat(onA.tryAcquire("w" + i, 2).allowed()).isTrue();
                if (onA.tryAcquire("w" + i).verdict() == Verdict.REJECTED) {
                    client = "w" + i;
                }
            }
            String denied = client;
            assertThat(onA.tryAcquire(denied).source()).isEqualTo(Source.DENIAL_CACHE);
            await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(2)).until(() -> onB.tryAcquire(denied).allowed());
            Decision afterB = onA.tryAcquire(denied);
            assertThat(afterB.source()).as("A asks Redis again once B was admitted").isEqualTo(Source.STORE);
            assertThat(afterB.verdict()).isEqualTo(Verdict.ALLOWED);
        }
    }

    @Test
    void instancesWithClocksYearsApartDecideAlikeAndCacheADenialForExactlyRedisRetryAfter() {
        ManualClock ahead = new ManualClock(Instant.parse("2051-06-01T00:00:00Z"));
        ManualClock behind = new ManualClock(Instant.parse("1999-06-01T00:00:00Z"));
        try (RedisStore a = instance().clock(ahead).build(); RedisStore b = instance().clock(behind).build()) {
            Limit limit = Limit.of("skew", Policy.tokenBucket(4, 1, HOUR));
            List<String> decisions = new ArrayList<>();
            List<Decision> made = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                Decision d = (i % 2 == 0 ? a : b).limiter(limit).tryAcquire("s");
                made.add(d);
                decisions.add(d.verdict() + " " + d.remaining() + " " + d.source());
            }
            assertThat(decisions).containsExactly("ALLOWED 3 STORE", "ALLOWED 2 STORE", "ALLOWED 1 STORE",
                    "ALLOWED 0 STORE", "REJECTED 0 STORE", "REJECTED 0 STORE");
            Decision deniedOnA = made.get(4);
            Decision deniedOnB = made.get(5);
            // Redis TIME moves on in real time between the calls: microseconds apart, whatever the local clocks say.
            assertThat(deniedOnA.retryAfterMicros() - deniedOnB.retryAfterMicros()).isBetween(0L, 1_000_000L);
            RateLimiter onA = a.limiter(limit);
            assertThat(onA.tryAcquire("s").source()).isEqualTo(Source.DENIAL_CACHE);
            ahead.advanceMicros(deniedOnA.retryAfterMicros() - 1);
            assertThat(onA.tryAcquire("s").source()).isEqualTo(Source.DENIAL_CACHE);
            ahead.advanceMicros(1);
            assertThat(onA.tryAcquire("s").source()).as("cache expiry = retry-after").isEqualTo(Source.STORE);
            assertThat(a.health()).isEqualTo(dev.ratelimit.StoreHealth.UP);
            assertThat(b.health()).isEqualTo(dev.ratelimit.StoreHealth.UP);
        }
    }
}
