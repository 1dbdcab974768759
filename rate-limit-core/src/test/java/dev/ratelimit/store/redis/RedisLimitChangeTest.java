package dev.ratelimit.store.redis;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import dev.ratelimit.TokenBucket;
import dev.ratelimit.Verdict;
import dev.ratelimit.testing.RedisServer;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A deployment that changes a limit's numbers while clients have state: each instance is a store of
 * its own on one Redis, as after a restart with a new configuration. What the client already spent
 * counts under the new numbers wherever the state still means the same; only a new algorithm, window
 * or refill rate starts it fresh.
 */
class RedisLimitChangeTest {
    private static final Duration MINUTE = Duration.ofMinutes(1);
    private static RedisServer redis;
    /** A minute boundary: fixed windows start here. */
    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final List<RedisStore> stores = new ArrayList<>();

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stop() {
        redis.close();
    }

    @AfterEach
    void closeStores() {
        stores.forEach(RedisStore::close);
        redis.call("FLUSHALL");
    }

    /** A limiter of a fresh instance (its own store, denial cache and connections) deciding {@code name} by {@code policies}. */
    private RateLimiter instance(String name, Policy... policies) {
        RedisStore store = RedisStore.builder().url(redis.url()).clock(clock).timeFromClock(true)
                .readTimeout(Duration.ofSeconds(2)).build();
        stores.add(store);
        return store.limiter(Limit.of(name, policies));
    }

    private static int admitted(RateLimiter limiter, String client, int requests) {
        int admitted = 0;
        for (int i = 0; i < requests; i++) {
            Decision d = limiter.tryAcquire(client);
            assertThat(d.source()).isEqualTo(Source.STORE);
            admitted += d.allowed() ? 1 : 0;
        }
        return admitted;
    }

    @Test
    void aLoweredLimitCountsWhatTheClientSpentAndARaisedOneAddsToIt() {
        assertThat(admitted(instance("login", Policy.fixedWindow(10, MINUTE)), "ada", 8)).isEqualTo(8);

        Decision lowered = instance("login", Policy.fixedWindow(5, MINUTE)).tryAcquire("ada");
        assertThat(lowered.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(lowered.remaining()).as("8 spent of 5: none left, never below 0").isZero();
        assertThat(lowered.retryAfter()).contains(MINUTE);

        RateLimiter raised = instance("login", Policy.fixedWindow(20, MINUTE));
        assertThat(raised.tryAcquire("ada").remaining()).isEqualTo(20 - 9);
    }

    @Test
    void everyAlgorithmKeepsTheClientsStateThroughAChangeOfItsLimitAlone() {
        Policy[][] beforeAndAfter = {
                {Policy.tokenBucket(10, 1, MINUTE), Policy.tokenBucket(4, 1, MINUTE)},
                {Policy.slidingWindowLog(10, MINUTE), Policy.slidingWindowLog(4, MINUTE)},
                {Policy.slidingWindowCounter(10, MINUTE), Policy.slidingWindowCounter(4, MINUTE)},
                {Policy.gcra(1, Duration.ofSeconds(6), 10), Policy.gcra(1, Duration.ofSeconds(6), 4)}};
        for (Policy[] change : beforeAndAfter) {
            String name = "change-" + change[0].algorithm().replace('_', '-');
            assertThat(admitted(instance(name, change[0]), "ada", 6)).as("%s", change[0]).isEqualTo(6);

            Decision after = instance(name, change[1]).tryAcquire("ada");

            assertThat(after.verdict()).as("6 spent, %s allows 4", change[1]).isEqualTo(Verdict.REJECTED);
            assertThat(after.remaining()).isZero();
        }
    }

    @Test
    void equivalentRatesShareStateAndANewAlgorithmWindowOrRateStartsFresh() {
        RateLimiter oneAMinute = instance("scan", Policy.tokenBucket(5, 1, MINUTE));
        assertThat(admitted(oneAMinute, "ada", 5)).isEqualTo(5);
        assertThat(instance("scan", Policy.tokenBucket(5, 2, Duration.ofMinutes(2))).tryAcquire("ada").allowed())
                .as("2 per 2 minutes is 1 per minute: the same state").isFalse();

        assertThat(instance("scan", Policy.tokenBucket(5, 2, MINUTE)).tryAcquire("ada").remaining())
                .as("another rate: fresh").isEqualTo(4);
        assertThat(instance("scan", Policy.gcra(1, MINUTE, 5)).tryAcquire("ada").remaining())
                .as("another algorithm: fresh").isEqualTo(4);
        assertThat(admitted(instance("login", Policy.fixedWindow(3, MINUTE)), "ada", 3)).isEqualTo(3);
        assertThat(instance("login", Policy.fixedWindow(3, Duration.ofMinutes(2))).tryAcquire("ada").remaining())
                .as("another window: fresh").isEqualTo(2);
        // A log is trimmed to its window and expires with it: kept under another window, it would be read as complete.
        assertThat(admitted(instance("audit", Policy.slidingWindowLog(3, Duration.ofSeconds(1))), "ada", 3)).isEqualTo(3);
        assertThat(instance("audit", Policy.slidingWindowLog(3, MINUTE)).tryAcquire("ada").remaining())
                .as("a log's other window: fresh").isEqualTo(2);
    }

    @Test
    void aCapAddedToALimitKeepsTheStateOfThePolicyAlreadyThere() {
        TokenBucket bucket = Policy.tokenBucket(5, 1, MINUTE);
        assertThat(admitted(instance("scan", bucket), "ada", 5)).isEqualTo(5);

        Decision capped = instance("scan", Policy.fixedWindow(100, Duration.ofHours(1)), bucket).tryAcquire("ada");

        assertThat(capped.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(capped.policy()).isEqualTo(bucket);
    }

    @Test
    void twoPoliciesWithOneMeaningInOneLimitKeepStatesOfTheirOwn() {
        RateLimiter twoWindows = instance("twice", Policy.fixedWindow(3, MINUTE), Policy.fixedWindow(5, MINUTE));
        assertThat(admitted(twoWindows, "ada", 4)).isEqualTo(3);
        assertThat(ScriptLimit.key("rl:", Limit.of("twice", Policy.fixedWindow(3, MINUTE), Policy.fixedWindow(5, MINUTE)), "h", 1))
                .endsWith(":{h}:1");
        assertThat(redis.call("KEYS", "rl:twice:*")).asInstanceOf(InstanceOfAssertFactories.LIST).hasSize(2);
    }

    @Test
    void duringARollingDeployAClientAlternatingBetweenOldAndNewNumbersGetsTheHigherLimitNotBoth() {
        RateLimiter old = instance("login", Policy.fixedWindow(10, MINUTE));
        RateLimiter updated = instance("login", Policy.fixedWindow(5, MINUTE));
        int admitted = 0;
        for (int i = 0; i < 15; i++) {
            admitted += old.tryAcquire("ada").allowed() ? 1 : 0;
            admitted += updated.tryAcquire("ada").allowed() ? 1 : 0;
        }
        assertThat(admitted).isEqualTo(10);
    }

    @Test
    void stateFingerprintsAreFixedSoThatRedisKeysSurviveAnUpgrade() {
        // Keys carry them: if they changed, every client would start fresh after an upgrade, and
        // during a rolling upgrade spend two quotas.
        assertThat(ScriptLimit.stateFingerprint(Policy.tokenBucket(10, 1, Duration.ofSeconds(1)))).isEqualTo(
                ScriptLimit.stateFingerprint(Policy.tokenBucket(99, 1, Duration.ofSeconds(1))));
        assertThat(List.of(Policy.tokenBucket(10, 1, Duration.ofSeconds(1)), Policy.fixedWindow(5, MINUTE),
                Policy.slidingWindowLog(5, MINUTE), Policy.slidingWindowCounter(5, MINUTE), Policy.gcra(3, Duration.ofSeconds(1), 6))
                .stream().map(ScriptLimit::stateFingerprint).toList())
                .containsExactly("a19230b3ed84bc9e", "6a997b55c98f5671", "82a410e89f4e318c", "6ffa37177b8cce06", "499695f79f4c63c0");
    }
}
