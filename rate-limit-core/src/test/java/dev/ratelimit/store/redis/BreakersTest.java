package dev.ratelimit.store.redis;

import dev.ratelimit.ManualClock;
import dev.ratelimit.StoreHealth;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** One breaker per Cluster master: a dead master stops calls to itself only; the store's health is the worst. */
class BreakersTest {
    private static final long OPEN_MICROS = 1_000_000;
    private static final IOException DOWN = new IOException("connection refused");

    private final ManualClock clock = new ManualClock(1_000_000_000_000L);
    private final List<String> changes = new ArrayList<>();
    /** Masters that own no slot in the slot map (lost them in a failover, or got none yet). */
    private final Set<Object> ownerless = new HashSet<>();
    private final Breakers breakers = new Breakers(2, OPEN_MICROS, clock,
            // keys starting with "a" live on master A, "b" on master B, anything else: no known master
            key -> key.startsWith("a") ? "A" : key.startsWith("b") ? "B" : null, node -> !ownerless.contains(node),
            (previous, current, cause) -> changes.add(previous + "->" + current));

    private void fail(CircuitBreaker breaker) {
        assertThat(breaker.allowCall(clock.nowMicros())).isTrue();
        breaker.onFailure(clock.nowMicros(), clock.nowMicros(), DOWN);
    }

    /** Master A's breaker, opened by two failed calls (the threshold). */
    private CircuitBreaker openBreakerOfA() {
        CircuitBreaker a = breakers.forKey("a:1");
        fail(a);
        fail(a);
        return a;
    }

    @Test
    void aFailingMasterStopsCallsToItselfOnlyAndTheStoreSaysSo() {
        CircuitBreaker a = breakers.forKey("a:1");
        CircuitBreaker b = breakers.forKey("b:1");

        fail(a);
        breakers.onSuccess(b, clock.nowMicros());
        fail(a);
        breakers.onSuccess(b, clock.nowMicros());

        assertThat(a.allowCall(clock.nowMicros())).as("master A's breaker is open").isFalse();
        assertThat(breakers.forKey("a:2")).isSameAs(a);
        assertThat(b.allowCall(clock.nowMicros())).as("master B's clients still call Redis").isTrue();
        assertThat(breakers.health()).isEqualTo(StoreHealth.CIRCUIT_OPEN);
        assertThat(changes).containsExactly("UP->DEGRADED", "DEGRADED->CIRCUIT_OPEN");
    }

    @Test
    void aProbeWhoseCallFailedOnAnotherMasterLeavesItsBreakerAsItWasAndFreeToProbeAgain() {
        CircuitBreaker a = openBreakerOfA();
        clock.advance(Duration.ofMillis(1_000));
        assertThat(a.allowCall(clock.nowMicros())).as("the probe").isTrue();
        // Redirected (ASK) to master B, which is down: B's failure, not A's.
        CircuitBreaker b = breakers.forNode("B");
        assertThat(b).isSameAs(breakers.forKey("b:1"));
        breakers.onFailure(b, clock.nowMicros(), clock.nowMicros(), DOWN);
        a.callWentElsewhere();

        assertThat(a.health()).isEqualTo(StoreHealth.CIRCUIT_OPEN);
        assertThat(a.allowCall(clock.nowMicros())).as("A's next call is its probe").isTrue();
        breakers.onSuccess(a, clock.nowMicros());
        assertThat(a.health()).isEqualTo(StoreHealth.UP);
        assertThat(b.health()).isEqualTo(StoreHealth.DEGRADED);
    }

    @Test
    void theStoreIsUpAgainWhenEveryFailingMasterAnswers() {
        CircuitBreaker a = openBreakerOfA();
        CircuitBreaker b = breakers.forKey("b:1");
        fail(b);

        clock.advanceMicros(OPEN_MICROS);
        assertThat(a.allowCall(clock.nowMicros())).as("A's probe").isTrue();
        breakers.onSuccess(a, clock.nowMicros());
        assertThat(breakers.health()).as("B is still failing").isEqualTo(StoreHealth.DEGRADED);
        breakers.onSuccess(b, clock.nowMicros());

        assertThat(breakers.health()).isEqualTo(StoreHealth.UP);
        assertThat(changes).containsExactly("UP->DEGRADED", "DEGRADED->CIRCUIT_OPEN", "CIRCUIT_OPEN->DEGRADED", "DEGRADED->UP");
    }

    @Test
    void anOpenBreakerThatNoDecisionNeedsForAMinuteNoLongerCounts() {
        CircuitBreaker a = openBreakerOfA();
        CircuitBreaker b = breakers.forKey("b:1");

        // A failover moved A's slots away: its clients now map to another master, A is never asked again.
        clock.advanceMicros(Breakers.FORGET_AFTER_MICROS - 1);
        breakers.onSuccess(b, clock.nowMicros());
        assertThat(breakers.health()).isEqualTo(StoreHealth.CIRCUIT_OPEN);
        clock.advanceMicros(1);
        breakers.onSuccess(b, clock.nowMicros());

        assertThat(breakers.health()).isEqualTo(StoreHealth.UP);
        assertThat(breakers.forKey("a:1")).as("a fresh breaker if A comes back").isNotSameAs(a);
        assertThat(changes).containsExactly("UP->DEGRADED", "DEGRADED->CIRCUIT_OPEN", "CIRCUIT_OPEN->UP");
    }

    /**
     * {@code b}'s shared breaker (a single node's only one), opened by two failures and then needed by
     * no decision for a minute: forgotten, the store says UP again while it is still not UP.
     */
    private CircuitBreaker forgottenOpenShared(Breakers b) {
        CircuitBreaker shared = b.shared();
        b.onFailure(shared, clock.nowMicros(), clock.nowMicros(), DOWN);
        b.onFailure(shared, clock.nowMicros(), clock.nowMicros(), DOWN);
        clock.advanceMicros(Breakers.FORGET_AFTER_MICROS);
        b.onSuccess(b.forKey("b:1"), clock.nowMicros());
        assertThat(b.health()).as("forgotten").isEqualTo(StoreHealth.UP);
        return shared;
    }

    @Test
    void theSharedBreakerCountsAgainWhenItFailsAfterBeingForgotten() {
        // A single node in an outage with no traffic for a minute, then traffic again, still failing.
        CircuitBreaker shared = forgottenOpenShared(breakers);

        assertThat(shared.allowCall(clock.nowMicros())).as("the probe").isTrue();
        breakers.onFailure(shared, clock.nowMicros(), clock.nowMicros(), DOWN); // OPEN again: no change of the breaker's own state

        assertThat(breakers.health()).isEqualTo(StoreHealth.CIRCUIT_OPEN);
        assertThat(changes).containsExactly("UP->DEGRADED", "DEGRADED->CIRCUIT_OPEN", "CIRCUIT_OPEN->UP",
                "UP->DEGRADED", "DEGRADED->CIRCUIT_OPEN");
    }

    @Test
    void theSharedBreakerCountsAgainWhenItRefusesACallAfterBeingForgotten() {
        // Open for longer than a minute: when traffic comes back, the breaker is still open and refuses.
        Breakers longOpen = new Breakers(2, 10 * Breakers.FORGET_AFTER_MICROS, clock, key -> key.startsWith("b") ? "B" : null,
                node -> true, (previous, current, cause) -> changes.add(previous + "->" + current));
        CircuitBreaker shared = forgottenOpenShared(longOpen);

        assertThat(shared.allowCall(clock.nowMicros())).as("still open").isFalse();
        longOpen.onRefused(shared);

        assertThat(longOpen.health()).isEqualTo(StoreHealth.CIRCUIT_OPEN);
    }

    @Test
    void anOpenBreakerThatDecisionsStillAskForKeepsCounting() {
        CircuitBreaker a = openBreakerOfA();
        for (int i = 0; i < 3; i++) {
            clock.advance(Duration.ofSeconds(30));
            fail(a); // the probe of A's clients fails again
            breakers.onSuccess(breakers.forKey("b:1"), clock.nowMicros());
        }
        assertThat(breakers.health()).isEqualTo(StoreHealth.CIRCUIT_OPEN);
    }

    @Test
    void keysWithNoKnownMasterShareOneBreaker() {
        Breakers throwing = new Breakers(2, OPEN_MICROS, clock, key -> {
            throw new IllegalStateException("slot map being rebuilt");
        }, node -> true, (previous, current, cause) -> { });

        assertThat(breakers.forKey("x:1")).isSameAs(breakers.forKey("y:2")).isNotSameAs(breakers.forKey("a:1"));
        assertThat(throwing.forKey("a:1")).isSameAs(throwing.forKey("b:1"));
    }

    @Test
    void aKeyOfNoKnownMasterUsesTheSharedBreaker() {
        assertThat(breakers.forKey("c:1")).isSameAs(breakers.shared()).isNotNull();
        assertThat(breakers.forNode(null)).isSameAs(breakers.shared());
    }

    @Test
    void theSharedBreakerCountsAgainWhileAnotherMasterKeepsTheStoreDegraded() {
        // As above, but master B's breaker is failing too when the forgotten shared one fails again: the
        // store's health is the worst of the breakers that count, so CIRCUIT_OPEN, not B's DEGRADED.
        CircuitBreaker shared = breakers.shared();
        breakers.onFailure(shared, clock.nowMicros(), clock.nowMicros(), DOWN);
        breakers.onFailure(shared, clock.nowMicros(), clock.nowMicros(), DOWN);
        clock.advanceMicros(Breakers.FORGET_AFTER_MICROS);
        fail(breakers.forKey("b:1"));
        assertThat(breakers.health()).as("shared forgotten, B degraded").isEqualTo(StoreHealth.DEGRADED);

        assertThat(shared.allowCall(clock.nowMicros())).as("the probe").isTrue();
        breakers.onFailure(shared, clock.nowMicros(), clock.nowMicros(), DOWN); // OPEN again: no change of the breaker's own state

        assertThat(breakers.health()).isEqualTo(StoreHealth.CIRCUIT_OPEN);
        assertThat(changes).containsExactly("UP->DEGRADED", "DEGRADED->CIRCUIT_OPEN", "CIRCUIT_OPEN->DEGRADED",
                "DEGRADED->CIRCUIT_OPEN");
    }

    @Test
    void aFailedConnectionCheckDegradesTheStoreWithoutABreakerUntilAnyMasterAnswers() {
        breakers.onCheck(DOWN);
        breakers.onCheck(DOWN);

        assertThat(breakers.health()).isEqualTo(StoreHealth.DEGRADED);
        assertThat(breakers.shared().health()).as("no breaker counts it").isEqualTo(StoreHealth.UP);
        assertThat(breakers.shared().allowCall(clock.nowMicros())).isTrue();
        breakers.onSuccess(breakers.forKey("b:1"), clock.nowMicros());

        assertThat(breakers.health()).isEqualTo(StoreHealth.UP);
        assertThat(changes).containsExactly("UP->DEGRADED", "DEGRADED->UP");
    }

    @Test
    void aConnectionCheckThatPassesClearsOnlyTheFailedChecksOwnDegradation() {
        breakers.onCheck(DOWN);
        breakers.onCheck(null);
        assertThat(breakers.health()).isEqualTo(StoreHealth.UP);

        CircuitBreaker a = openBreakerOfA();
        breakers.onCheck(null);

        assertThat(a.health()).isEqualTo(StoreHealth.CIRCUIT_OPEN);
        assertThat(breakers.health()).isEqualTo(StoreHealth.CIRCUIT_OPEN);
        assertThat(changes).containsExactly("UP->DEGRADED", "DEGRADED->UP", "UP->DEGRADED", "DEGRADED->CIRCUIT_OPEN");
    }

    @Test
    void aFailingMasterThatLostItsSlotsStopsCountingOnceNoDecisionNeedsItNotAMinuteLater() {
        CircuitBreaker a = openBreakerOfA();
        CircuitBreaker b = breakers.forKey("b:1");
        ownerless.add("A");   // its replica took over: A's keys now map elsewhere, A is never asked again

        clock.advanceMicros(Breakers.OWNERLESS_FORGET_AFTER_MICROS - 1);
        breakers.onSuccess(b, clock.nowMicros());
        assertThat(breakers.health()).as("a call to A may still be on its way").isEqualTo(StoreHealth.CIRCUIT_OPEN);
        clock.advanceMicros(1);
        breakers.onSuccess(b, clock.nowMicros());

        assertThat(breakers.health()).isEqualTo(StoreHealth.UP);
        assertThat(breakers.forKey("a:1")).as("a fresh breaker if A gets slots again").isNotSameAs(a);
        assertThat(changes).containsExactly("UP->DEGRADED", "DEGRADED->CIRCUIT_OPEN", "CIRCUIT_OPEN->UP");
    }

    @Test
    void aFailingMasterWithoutSlotsThatDecisionsStillNeedKeepsCounting() {
        // A master given slots by a resharding is reached by ASK before the slot map names it.
        CircuitBreaker a = openBreakerOfA();
        ownerless.add("A");
        for (int i = 0; i < 5; i++) {
            clock.advanceMicros(Breakers.OWNERLESS_FORGET_AFTER_MICROS / 2);
            if (a.allowCall(clock.nowMicros())) {   // a decision needed A: its probe, which fails, A being down
                breakers.onFailure(a, clock.nowMicros(), clock.nowMicros(), DOWN);
            } else {
                breakers.onRefused(a);
            }
            breakers.onSuccess(breakers.forKey("b:1"), clock.nowMicros());
        }

        assertThat(breakers.health()).isEqualTo(StoreHealth.CIRCUIT_OPEN);
        assertThat(breakers.forKey("a:1")).isSameAs(a);
    }

    @Test
    void aFailingMasterThatStillOwnsSlotsIsNotForgottenBeforeAMinute() {
        CircuitBreaker a = openBreakerOfA();
        clock.advanceMicros(Breakers.FORGET_AFTER_MICROS - 1);
        breakers.onSuccess(breakers.forKey("b:1"), clock.nowMicros());

        assertThat(breakers.health()).isEqualTo(StoreHealth.CIRCUIT_OPEN);
        assertThat(breakers.forKey("a:1")).isSameAs(a);
    }

    @Test
    void aFailedCheckThenAnOpenBreakerWhoseProbeSucceedsGoesStraightBackUp() {
        // Redis down at start-up: the check fails, then decisions open the breaker, then Redis answers its probe.
        breakers.onCheck(new OutageLog.CheckFailed(DOWN));
        CircuitBreaker shared = breakers.shared();
        fail(shared);
        fail(shared);
        clock.advanceMicros(OPEN_MICROS);
        assertThat(shared.allowCall(clock.nowMicros())).as("the probe").isTrue();
        breakers.onSuccess(shared, clock.nowMicros());

        assertThat(breakers.health()).isEqualTo(StoreHealth.UP);
        assertThat(changes).containsExactly("UP->DEGRADED", "DEGRADED->CIRCUIT_OPEN", "CIRCUIT_OPEN->UP");
    }

    @Test
    void aMasterReachedOnlyByRedirectionIsNotForgottenForOwningNoSlot() {
        // A resharding moves a slot of A to B, which owns none yet: calls reach B by ASK, and B is down.
        ownerless.add("B");
        CircuitBreaker a = breakers.forKey("a:1");
        for (int i = 0; i < 3; i++) {
            assertThat(a.allowCall(clock.nowMicros())).isTrue();
            breakers.onFailure(breakers.forNode("B"), clock.nowMicros(), clock.nowMicros(), DOWN);
            a.callWentElsewhere();
            for (int j = 0; j < 30; j++) {
                clock.advanceMicros(100_000);
                breakers.onSuccess(a, clock.nowMicros());
            }
        }

        assertThat(breakers.forNode("B").health()).as("counted on: two failures open it").isEqualTo(StoreHealth.CIRCUIT_OPEN);
        assertThat(changes).containsExactly("UP->DEGRADED", "DEGRADED->CIRCUIT_OPEN");
    }

    @Test
    void aMasterThatLostItsSlotsIsForgottenAfterTheClockWasSteppedBackToo() {
        openBreakerOfA();
        CircuitBreaker b = breakers.forKey("b:1");
        ownerless.add("A");

        clock.advance(Duration.ofHours(-1));   // NTP, a restored VM: a clock of your own that steps
        breakers.onSuccess(b, clock.nowMicros());

        assertThat(breakers.health()).isEqualTo(StoreHealth.UP);
    }
}
