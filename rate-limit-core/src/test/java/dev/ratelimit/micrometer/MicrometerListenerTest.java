package dev.ratelimit.micrometer;

import dev.ratelimit.Decision;
import dev.ratelimit.DecisionEvent;
import dev.ratelimit.FailureMode;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import dev.ratelimit.StoreHealth;
import dev.ratelimit.Undecided;
import dev.ratelimit.Verdict;
import dev.ratelimit.store.memory.MemoryStore;
import dev.ratelimit.store.redis.RedisStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static dev.ratelimit.Fixtures.clock;
import static org.assertj.core.api.Assertions.assertThat;

class MicrometerListenerTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ManualClock clock = clock();
    private final MemoryStore store = MemoryStore.builder().clock(clock).build();
    private final MicrometerListener listener = MicrometerListener.of(registry, store::trackedKeys);
    private final Limit login = Limit.of("login", Policy.fixedWindow(5, Duration.ofMinutes(1)));
    private final RateLimiter limiter = store.limiter(login);

    private void request(String tier, boolean shadow) {
        Decision d = limiter.tryAcquire("ip:203.0.113.7");
        listener.onDecision(new DecisionEvent(tier, "login", login, d, shadow, 120));
    }

    private double decisions(String outcome) {
        var counter = registry.find("ratelimit.decisions").tags("tier", "free", "endpoint", "login", "algorithm", "fixed_window", "outcome", outcome).counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void countsDecisionsByTierEndpointAlgorithmAndOutcome() {
        for (int i = 0; i < 7; i++) {
            request("free", false);
        }
        request("free", true);
        assertThat(decisions("allowed")).isEqualTo(5);
        assertThat(decisions("rejected")).isEqualTo(2);
        assertThat(decisions("shadow_rejected")).isEqualTo(1);
        // 5 allowed leave 4, 3, 2, 1, 0 of 5: the last two are under 20%... 1/5 is not under, 0/5 is.
        assertThat(registry.get("ratelimit.near.limit").tags("tier", "free", "endpoint", "login").counter().count()).isEqualTo(1);
        assertThat(registry.get("ratelimit.remaining.percent").summary().count()).isEqualTo(8);
        assertThat(registry.get("ratelimit.decision").timer().count()).isEqualTo(8);
        assertThat(registry.get("ratelimit.tracked.keys").gauge().value()).isEqualTo(1);
    }

    @Test
    void aBoundLimitHasItsMetersAtZeroForEveryAlgorithmAndOutcome() {
        Limit search = Limit.of("search", Policy.tokenBucket(10, 1, Duration.ofSeconds(1)), Policy.fixedWindow(100, Duration.ofHours(1)));

        listener.onLimitBound("pro", "search", search);

        for (String algorithm : new String[] {"token_bucket", "fixed_window"}) {
            for (Outcome outcome : Outcome.values()) {
                assertThat(registry.get("ratelimit.decisions").tags("tier", "pro", "endpoint", "search", "algorithm", algorithm,
                        "outcome", outcome.tag).counter().count()).isZero();
            }
        }
        assertThat(registry.get("ratelimit.near.limit").tags("tier", "pro", "endpoint", "search").counter().count()).isZero();
        assertThat(registry.get("ratelimit.remaining.percent").tags("tier", "pro", "endpoint", "search").summary().count()).isZero();
    }

    @Test
    void tellsFailOpenAndFallbackApart() {
        Decision open = new Decision(Verdict.ALLOWED, Source.FAIL_OPEN, login.policies().get(0), 5, 5, 0, 0);
        Decision fallback = new Decision(Verdict.REJECTED, Source.LOCAL_FALLBACK, login.policies().get(0), 5, 0, 1_000, 1_000);
        listener.onDecision(new DecisionEvent("free", "login", login, open, false, 10));
        listener.onDecision(new DecisionEvent("free", "login", login, fallback, false, 10));
        assertThat(decisions("failed_open")).isEqualTo(1);
        assertThat(decisions("fallback_rejected")).isEqualTo(1);
        assertThat(registry.get("ratelimit.remaining.percent").summary().count()).as("fail-open numbers are not recorded").isEqualTo(1);
    }

    @Test
    void publishesStoreHealthAndLatency() {
        assertThat(registry.get("ratelimit.store.health").tag("state", "up").gauge().value()).isEqualTo(1);
        listener.onHealthChange(StoreHealth.UP, StoreHealth.CIRCUIT_OPEN);
        assertThat(registry.get("ratelimit.store.health").tag("state", "up").gauge().value()).isZero();
        assertThat(registry.get("ratelimit.store.health").tag("state", "circuit_open").gauge().value()).isEqualTo(1);
        listener.onStoreCall(250, true);
        listener.onStoreCall(100_000, false);
        listener.onStoreError(new IllegalStateException("down"));
        assertThat(registry.get("ratelimit.store").tag("result", "ok").timer().totalTime(java.util.concurrent.TimeUnit.MICROSECONDS)).isEqualTo(250);
        assertThat(registry.get("ratelimit.store").tag("result", "error").timer().count()).isEqualTo(1);
        assertThat(registry.get("ratelimit.store.errors").counter().count()).isEqualTo(1);
    }

    @Test
    void countsEachHealthChangeSoThatAnOutageShorterThanAScrapeStillShows() {
        listener.onHealthChange(StoreHealth.UP, StoreHealth.DEGRADED);
        listener.onHealthChange(StoreHealth.DEGRADED, StoreHealth.CIRCUIT_OPEN);
        listener.onHealthChange(StoreHealth.CIRCUIT_OPEN, StoreHealth.UP);
        listener.onHealthChange(StoreHealth.UP, StoreHealth.DEGRADED);
        listener.onHealthChange(StoreHealth.DEGRADED, StoreHealth.UP);

        assertThat(healthChanges("up", "degraded")).isEqualTo(2);
        assertThat(healthChanges("degraded", "circuit_open")).isEqualTo(1);
        assertThat(healthChanges("circuit_open", "up")).isEqualTo(1);
        assertThat(healthChanges("degraded", "up")).isEqualTo(1);
        assertThat(healthChanges("up", "circuit_open")).as("registered before it happens, at zero").isZero();
        assertThat(registry.get("ratelimit.store.health").tag("state", "up").gauge().value()).isEqualTo(1);
    }

    private double healthChanges(String from, String to) {
        return registry.get("ratelimit.store.health.changes").tags("from", from, "to", to).counter().count();
    }

    @Test
    void keepsTheTrackedKeysSupplierAliveAfterGarbageCollection() {
        SimpleMeterRegistry other = new SimpleMeterRegistry();
        MicrometerListener.of(other, store::trackedKeys);
        limiter.tryAcquire("ip:203.0.113.7");
        limiter.tryAcquire("ip:203.0.113.8");

        for (int i = 0; i < 3; i++) {
            System.gc();
        }

        assertThat(other.get("ratelimit.tracked.keys").gauge().value()).isEqualTo(2);
    }

    @Test
    void putsEachRemainingPercentageInTheBucketThatHoldsItExactly() {
        Limit scan = Limit.of("scan", Policy.tokenBucket(10, 1, Duration.ofSeconds(1)));
        RateLimiter bucket = store.limiter(scan);
        for (int i = 0; i < 12; i++) {
            listener.onDecision(new DecisionEvent("free", "scan", scan, bucket.tryAcquire("k"), false, 5));
        }

        // Remaining 9, 8, ... 1, 0 of 10, then 0 and 0: 90%, 80%, ... 10%, 0%, 0%, 0%.
        var histogram = registry.get("ratelimit.remaining.percent").tag("endpoint", "scan").summary().takeSnapshot().histogramCounts();
        assertThat(histogram[0].bucket()).isEqualTo(10);
        assertThat(histogram[0].count()).as("10%, 0%, 0%, 0%").isEqualTo(4);
        assertThat(histogram[4].bucket()).isEqualTo(50);
        assertThat(histogram[4].count()).isEqualTo(8);
        assertThat(histogram[9].count()).isEqualTo(12);
    }

    @Test
    void countsACostAboveTheLimitAsRejectedWhateverFailureModeAnsweredIt() {
        // Redis down (nothing listens on port 1): the store still knows a cost of 6 can never pass a
        // limit of 5, and says COST_EXCEEDS_LIMIT (the filter's 429) with its failure mode as source.
        for (FailureMode mode : new FailureMode[] {FailureMode.FAIL_OPEN, FailureMode.FAIL_CLOSED}) {
            try (RedisStore redis = RedisStore.builder().url("redis://127.0.0.1:1").failureMode(mode).clock(clock).build()) {
                Decision d = redis.limiter(login).tryAcquire("ip:203.0.113.7", 6);
                assertThat(d.verdict()).isEqualTo(Verdict.COST_EXCEEDS_LIMIT);
                listener.onDecision(new DecisionEvent("free", "login", login, d, false, 10));
            }
        }

        assertThat(decisions("rejected")).as("two requests refused with 429, never to pass").isEqualTo(2);
        assertThat(decisions("failed_open")).as("nothing was let through").isZero();
        assertThat(decisions("unavailable")).as("no 503 was answered").isZero();
    }

    @Test
    void countsAFallbackThatCouldNotDecideAsUnavailableNotAsA429() {
        // What the Redis store answers when its local fallback itself fails: the filter sends a 503.
        Decision unavailable = new Decision(Verdict.STORE_UNAVAILABLE, Source.LOCAL_FALLBACK, login.policies().get(0), 5, 0, 0, 1_000);
        listener.onDecision(new DecisionEvent("free", "login", login, unavailable, false, 10));

        assertThat(decisions("unavailable")).isEqualTo(1);
        assertThat(decisions("fallback_rejected")).as("not a 429").isZero();
        assertThat(registry.get("ratelimit.remaining.percent").summary().count()).as("it knows no remaining quota").isZero();
    }

    @Test
    void countsAnOutageInShadowModeAsLetThroughNotAsA503() {
        // Shadow mode passes every request, also one the store could not decide under FAIL_CLOSED.
        Decision unavailable = new Decision(Verdict.STORE_UNAVAILABLE, Source.FAIL_CLOSED, login.policies().get(0), 5, 0, 0, 1_000);
        listener.onDecision(new DecisionEvent("free", "login", login, unavailable, true, 10));

        assertThat(decisions("failed_open")).isEqualTo(1);
        assertThat(decisions("unavailable")).as("no 503 was answered").isZero();
    }

    @Test
    void countsTheLocalFallbacksDecisionsInShadowModeAsTheFallbackDecidedThemNotAsFailedOpen() {
        // Store down under LOCAL_FALLBACK, in shadow mode: the fallback still decides, so its refusal is
        // an over-the-limit request let through (shadow_rejected), its admission a fallback_allowed.
        Decision refused = new Decision(Verdict.REJECTED, Source.LOCAL_FALLBACK, login.policies().get(0), 5, 0, 0, 1_000);
        Decision allowed = new Decision(Verdict.ALLOWED, Source.LOCAL_FALLBACK, login.policies().get(0), 5, 4, 0, 0);
        listener.onDecision(new DecisionEvent("free", "login", login, refused, true, 10));
        listener.onDecision(new DecisionEvent("free", "login", login, allowed, true, 10));

        assertThat(decisions("shadow_rejected")).isEqualTo(1);
        assertThat(decisions("fallback_allowed")).isEqualTo(1);
        assertThat(decisions("failed_open")).isZero();
    }

    @Test
    void countsUndecidedRequestsByReasonAndOutcomeApartFromDecisions() {
        listener.onUndecided(Undecided.INVALID_CLIENT, false);
        listener.onUndecided(Undecided.INVALID_CLIENT, false);
        listener.onUndecided(Undecided.INVALID_CLIENT, true);
        listener.onUndecided(Undecided.FAILURE, false);

        assertThat(registry.get("ratelimit.undecided").tags("reason", "invalid_client", "outcome", "refused").counter().count()).isEqualTo(2);
        assertThat(registry.get("ratelimit.undecided").tags("reason", "invalid_client", "outcome", "passed").counter().count()).isEqualTo(1);
        assertThat(registry.get("ratelimit.undecided").tags("reason", "failure", "outcome", "refused").counter().count()).isEqualTo(1);
        assertThat(registry.get("ratelimit.undecided").tags("reason", "failure", "outcome", "passed").counter().count())
                .as("published at zero before the first, so a rate() has a series to start from").isZero();
        assertThat(registry.get("ratelimit.decision").timer().count()).isZero();
        assertThat(registry.find("ratelimit.decisions").counters()).isEmpty();
    }

    @Test
    void aListenerCreatedLaterOnTheSameRegistryPublishesTheHealthAndTrackedKeysGauges() {
        // A reload: a new store and listener replace the old ones on the application's registry.
        MemoryStore reloaded = MemoryStore.builder().clock(clock).build();
        MicrometerListener replacement = MicrometerListener.of(registry, reloaded::trackedKeys);
        reloaded.limiter(login).tryAcquire("ip:203.0.113.7");
        reloaded.limiter(login).tryAcquire("ip:203.0.113.8");
        limiter.tryAcquire("ip:203.0.113.9");

        replacement.onHealthChange(StoreHealth.UP, StoreHealth.DEGRADED);
        replacement.onHealthChange(StoreHealth.DEGRADED, StoreHealth.CIRCUIT_OPEN);

        assertThat(registry.get("ratelimit.store.health").tag("state", "circuit_open").gauge().value()).isEqualTo(1);
        assertThat(registry.get("ratelimit.store.health").tag("state", "up").gauge().value()).isZero();
        assertThat(registry.find("ratelimit.store.health").gauges()).hasSize(3);
        assertThat(registry.get("ratelimit.tracked.keys").gauge().value()).as("the new store's keys").isEqualTo(2);
        assertThat(registry.find("ratelimit.tracked.keys").gauges()).hasSize(1);
        assertThat(healthChanges("degraded", "circuit_open")).as("counters are shared").isEqualTo(1);
    }

    @Test
    void aListenerCreatedLaterWithoutTrackedKeysDropsTheOldStoresGauge() {
        // A reload from the in-memory store to Redis: no keys are tracked in this process any more.
        limiter.tryAcquire("ip:203.0.113.9");
        MicrometerListener.of(registry);

        assertThat(registry.find("ratelimit.tracked.keys").gauges()).as("not the old store's count, nor the old store kept alive")
                .isEmpty();
    }

    @Test
    void aListenerWithoutATrackedKeysSupplierRecordsDecisions() {
        SimpleMeterRegistry own = new SimpleMeterRegistry();
        MicrometerListener plain = MicrometerListener.of(own);
        plain.onDecision(new DecisionEvent("free", "login", login, limiter.tryAcquire("ip:203.0.113.8"), false, 120));
        assertThat(own.get("ratelimit.decisions").tags("outcome", "allowed").counter().count()).isEqualTo(1);
        assertThat(own.find("ratelimit.tracked.keys").gauge()).isNull();
    }

    @Test
    void aDecisionWithoutALimitRecordsNoRemainingPercentage() {
        // A store of someone else's may decide without a limit: no percentage of nothing (infinite) is recorded.
        Decision noLimit = new Decision(Verdict.ALLOWED, Source.STORE, login.policies().get(0), 0, 1, 0, 0);
        listener.onDecision(new DecisionEvent("free", "login", login, noLimit, false, 120));
        assertThat(decisions("allowed")).isEqualTo(1);
        assertThat(registry.get("ratelimit.remaining.percent").summary().count()).isZero();
        assertThat(registry.get("ratelimit.near.limit").counter().count()).isZero();
    }
}
