package dev.ratelimit.store.redis;

import dev.ratelimit.FailureMode;
import dev.ratelimit.ManualClock;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.ratelimit.StoreHealth.CIRCUIT_OPEN;
import static dev.ratelimit.StoreHealth.DEGRADED;
import static dev.ratelimit.StoreHealth.UP;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The store's health lines stay few when health flaps: found by the reliability suite, where a Redis
 * Cluster failover made each instance log "is failing" and "has recovered" about 20 times in 2.5 s
 * (the failed master's keys failing, the others' succeeding).
 */
class OutageLogTest {
    private static final String FAILING = "WARN Redis store redis://h:1 is failing; deciding by failure mode LOCAL_FALLBACK"
            + " until it recovers: IllegalStateException: down";
    private static final String RECOVERED = "INFO Redis store redis://h:1 has recovered; decisions are shared again";
    private static final String OPEN = "WARN Redis store redis://h:1 has its circuit breaker open; Redis is probed again after the open period";
    private static final IllegalStateException DOWN = new IllegalStateException("down");

    private final List<String> lines = new ArrayList<>();
    private final OutageLog log = new OutageLog(new RecordedLines(lines), "redis://h:1", FailureMode.LOCAL_FALLBACK);

    @Test
    void saysOnceThatTheStoreWasUsedAfterCloseWhateverTheOutagesAround() {
        log.usedAfterClose();
        log.changed(UP, DEGRADED, DOWN, 0);
        log.usedAfterClose();

        assertThat(lines).containsExactly("WARN Redis store redis://h:1 was used after close(): its limiters decide by failure "
                + "mode LOCAL_FALLBACK from now on, without Redis; close the store after whatever decides with it", FAILING);
    }

    @Test
    void logsOneOutageWhenFailuresAndSuccessesInterleaveForSeconds() {
        for (int i = 0; i < 45; i++) {
            log.changed(UP, DEGRADED, DOWN, i * 50_000L);
            log.changed(DEGRADED, UP, null, i * 50_000L + 20_000);
        }

        assertThat(lines).containsExactly(FAILING, RECOVERED);
    }

    @Test
    void logsTheNextOutageAMinuteLaterSayingHowManyWereLeftOut() {
        log.changed(UP, DEGRADED, DOWN, 0);
        log.changed(DEGRADED, UP, null, 1_000_000);
        log.changed(UP, DEGRADED, DOWN, 2_000_000);
        log.changed(DEGRADED, UP, null, 3_000_000);
        log.changed(UP, DEGRADED, DOWN, 4_000_000);
        log.changed(DEGRADED, UP, null, 5_000_000);
        log.changed(UP, DEGRADED, DOWN, OutageLog.QUIET_MICROS);
        log.changed(DEGRADED, UP, null, OutageLog.QUIET_MICROS + 1);

        assertThat(lines).containsExactly(FAILING, RECOVERED, FAILING + " (2 brief outages since the last one logged)", RECOVERED);
    }

    @Test
    void aClockSteppedBackDoesNotSilenceTheNextOutage() {
        long hour = 3_600_000_000L;
        log.changed(UP, DEGRADED, DOWN, 5 * hour);
        log.changed(DEGRADED, UP, null, 5 * hour + 1_000_000);
        // The local clock is set back an hour (NTP, a VM restored): an outage after it is not "within a minute".
        log.changed(UP, DEGRADED, DOWN, 4 * hour + 10_000_000);
        log.changed(DEGRADED, UP, null, 4 * hour + 11_000_000);

        assertThat(lines).containsExactly(FAILING, RECOVERED, FAILING, RECOVERED);
    }

    @Test
    void alwaysLogsTheBreakerOpeningAndThenTheEndOfThatOutage() {
        log.changed(UP, DEGRADED, DOWN, 0);
        log.changed(DEGRADED, UP, null, 10);
        log.changed(UP, DEGRADED, DOWN, 20);
        log.changed(DEGRADED, CIRCUIT_OPEN, DOWN, 30);
        log.changed(CIRCUIT_OPEN, UP, null, 1_000_030);

        assertThat(lines).containsExactly(FAILING, RECOVERED, OPEN + ": IllegalStateException: down", RECOVERED);
    }

    @Test
    void anOutageLoggedByItsBreakerIsNotCountedAsLeftOut() {
        log.changed(UP, DEGRADED, DOWN, 0);
        log.changed(DEGRADED, UP, null, 10);
        log.changed(UP, DEGRADED, DOWN, 20);               // left out, then logged by its breaker
        log.changed(DEGRADED, CIRCUIT_OPEN, DOWN, 30);
        log.changed(CIRCUIT_OPEN, UP, null, 1_000_030);
        log.changed(UP, DEGRADED, DOWN, 2_000_000);        // left out for good
        log.changed(DEGRADED, UP, null, 2_000_010);
        log.changed(UP, DEGRADED, DOWN, OutageLog.QUIET_MICROS);

        assertThat(lines).containsExactly(FAILING, RECOVERED, OPEN + ": IllegalStateException: down", RECOVERED,
                FAILING + " (1 brief outages since the last one logged)");
    }

    @Test
    void aBreakerThatKeepsOpeningAndClosingIsLoggedAtMostFiveTimesAMinuteWithACount() {
        // From a trial: a Redis at its maxmemory under noeviction answered some calls and refused others
        // (OOM); the breaker opened and closed every 1.3 s, and each cycle logged two lines, 76 a minute.
        for (int i = 0; i < 100; i++) {
            long t = i * 1_300_000L;
            log.changed(UP, DEGRADED, DOWN, t);
            log.changed(DEGRADED, CIRCUIT_OPEN, DOWN, t + 200_000);
            log.changed(CIRCUIT_OPEN, UP, null, t + 1_200_000);
        }

        // Cycle 0's outage is logged, then the openings of cycles 1-4 with their ends; cycles 5-46 are left
        // out; cycle 47 (61.1 s) starts the next minute, and cycle 94 (122.2 s) the one after: 11 lines a minute.
        List<String> minute = new ArrayList<>(List.of(OPEN, RECOVERED));
        for (int i = 1; i < OutageLog.MAX_OPENINGS_LOGGED; i++) {
            minute.addAll(List.of(OPEN + ": IllegalStateException: down", RECOVERED));
        }
        String count = " (42 brief outages since the last one logged, 42 of them with the circuit breaker open)";
        List<String> expected = new ArrayList<>();
        expected.add(FAILING);
        expected.addAll(minute);
        expected.add(FAILING + count);
        expected.addAll(minute);
        expected.add(FAILING + count);
        expected.addAll(minute); // cycles 94-98; cycle 99 is left out
        assertThat(lines).containsExactlyElementsOf(expected);
    }

    /** Five flaps of the breaker logged, then a sixth outage whose start and opening are left out; returns when it opened. */
    private long flapUntilAnOpeningIsLeftOut() {
        long t = 0;
        for (int i = 0; i <= OutageLog.MAX_OPENINGS_LOGGED; i++) {
            t = i * 1_300_000L;
            log.changed(UP, DEGRADED, DOWN, t);
            log.changed(DEGRADED, CIRCUIT_OPEN, DOWN, t + 200_000);
            if (i < OutageLog.MAX_OPENINGS_LOGGED) {
                log.changed(CIRCUIT_OPEN, UP, null, t + 1_200_000);
            }
        }
        assertThat(lines).hasSize(1 + 2 * OutageLog.MAX_OPENINGS_LOGGED);
        return t + 200_000;
    }

    @Test
    void anOutageWhoseOpeningWasLeftOutIsLoggedAtItsFirstFailureAMinuteOnIfItLasts() {
        // From a review: a breaker whose probe fails stays open with no change of health, so a flapping
        // Redis that then went down for good was not logged at all, for as long as it stayed down.
        long openedAt = flapUntilAnOpeningIsLeftOut();
        RuntimeException refused = connectFailure(new java.net.ConnectException("Connection refused"));
        for (long t = openedAt + 1_000_000; t < openedAt + 3_600_000_000L; t += 1_000_000) {
            log.failed(refused, t); // each probe fails, once per open period
        }

        // One line: the opening's cause, and what fails now (so the next failure says nothing more).
        assertThat(lines.subList(1 + 2 * OutageLog.MAX_OPENINGS_LOGGED, lines.size())).containsExactly(
                OPEN + ": IllegalStateException: down; now: JedisConnectionException: Failed to connect to 127.0.0.1:1."
                        + " (first failure: ConnectException: Connection refused)");
        log.changed(CIRCUIT_OPEN, UP, null, openedAt + 3_600_000_000L);
        log.changed(UP, DEGRADED, DOWN, openedAt + 3_700_000_000L);
        assertThat(lines).endsWith(RECOVERED, FAILING); // counted as logged, not as left out
    }

    @Test
    void anOutageWhoseHealthGoesBetweenOpenAndDegradedSaysItsOpeningOnce() {
        // A Redis Cluster store has a breaker per master: with masters failing out of phase, its health
        // goes CIRCUIT_OPEN -> DEGRADED -> CIRCUIT_OPEN within one outage (from a review: a line each, 120 here).
        log.changed(UP, DEGRADED, DOWN, 0);
        for (int i = 0; i < 120; i++) {
            long t = 1_000_000L + i * 1_000_000L;
            log.changed(DEGRADED, CIRCUIT_OPEN, DOWN, t);
            log.changed(CIRCUIT_OPEN, DEGRADED, DOWN, t + 500_000);
        }
        log.changed(DEGRADED, UP, null, 200_000_000);

        assertThat(lines).containsExactly(FAILING, OPEN, RECOVERED);
    }

    @Test
    void anOutageLoggedByItsOpeningSaysItOnceToo() {
        log.changed(UP, DEGRADED, DOWN, 0);
        log.changed(DEGRADED, UP, null, 10);
        log.changed(UP, DEGRADED, DOWN, 20); // left out
        for (int i = 0; i < 120; i++) {
            long t = 1_000_000L + i * 1_000_000L;
            log.changed(DEGRADED, CIRCUIT_OPEN, DOWN, t);
            log.changed(CIRCUIT_OPEN, DEGRADED, DOWN, t + 500_000);
        }

        assertThat(lines).containsExactly(FAILING, RECOVERED, OPEN + ": IllegalStateException: down");
    }

    @Test
    void aLeftOutOpeningIsNotSaidOnceNoBreakerIsOpenButTheOutageThatLastsIs() {
        long openedAt = flapUntilAnOpeningIsLeftOut();
        log.changed(CIRCUIT_OPEN, DEGRADED, DOWN, openedAt + 1_000_000); // a Cluster master's breaker closed, another fails
        log.failed(DOWN, openedAt + 70_000_000);

        assertThat(lines.subList(1 + 2 * OutageLog.MAX_OPENINGS_LOGGED, lines.size())).containsExactly(FAILING);
    }

    @Test
    void anOutageLeftOutThatLastsAMinuteWithoutOpeningABreakerIsLogged() {
        // From a review: a Cluster store whose masters fail in turn can stay DEGRADED; left out because it
        // began within a minute of the last outage logged, it was never logged, however long it lasted.
        log.changed(UP, DEGRADED, DOWN, 0);
        log.changed(DEGRADED, UP, null, 1_000_000);
        log.changed(UP, DEGRADED, DOWN, 2_000_000); // left out: within the minute
        for (long t = 3_000_000; t < 3_600_000_000L; t += 1_000_000) {
            log.failed(DOWN, t);
        }

        assertThat(lines).containsExactly(FAILING, RECOVERED, FAILING);
    }

    @Test
    void aLeftOutOpeningWithoutACauseIsSaidWithoutOne() {
        long t = 0;
        for (int i = 0; i < OutageLog.MAX_OPENINGS_LOGGED; i++) {
            t = i * 1_300_000L;
            log.changed(UP, DEGRADED, DOWN, t);
            log.changed(DEGRADED, CIRCUIT_OPEN, DOWN, t + 200_000);
            log.changed(CIRCUIT_OPEN, UP, null, t + 1_200_000);
        }
        log.changed(UP, DEGRADED, DOWN, t + 1_300_000);
        log.changed(DEGRADED, CIRCUIT_OPEN, null, t + 1_500_000); // a forgotten breaker counting again: no cause
        log.failed(DOWN, t + 70_000_000);

        assertThat(lines.get(lines.size() - 1)).isEqualTo(OPEN + ": no cause; now: IllegalStateException: down");
    }

    @Test
    void twoClusterMastersFlappingOutOfPhaseThroughTheBreakersSayTheOutageOnce() {
        // From a review, through the real Breakers as the store wires them: 181 lines in 3 minutes before.
        ManualClock clock = new ManualClock(1_000_000_000_000L);
        Breakers breakers = new Breakers(2, 1_000_000L, clock, key -> key.substring(0, 1), node -> true,
                (previous, current, cause) -> log.changed(previous, current, cause, clock.nowMicros()));
        RuntimeException oom = new redis.clients.jedis.exceptions.JedisDataException("OOM command not allowed");
        CircuitBreaker a = breakers.forKey("a:1");
        CircuitBreaker b = breakers.forKey("b:1");
        long t = clock.nowMicros();
        breakers.onFailure(b, t, t, oom);
        for (int i = 0; i < 180; i++) {
            t = clock.nowMicros();
            breakers.onFailure(a, t, t, oom);
            breakers.onFailure(a, t, t, oom);   // A opens
            breakers.onSuccess(b, t);           // B answers one and refuses the next while A is open
            breakers.onFailure(b, t, t, oom);
            clock.advanceMicros(1_100_000);
            t = clock.nowMicros();
            assertThat(a.allowCall(t)).isTrue();
            breakers.onSuccess(a, t);           // A's probe: A closes, B still failing
        }

        assertThat(lines).hasSize(2);
        assertThat(lines.get(1)).startsWith(OPEN);
    }

    @Test
    void anOutageThatOpensTwiceCountsOnceAndALoggedReopeningUncountsIt() {
        // On a Cluster store (a breaker per master) health can go CIRCUIT_OPEN -> DEGRADED -> CIRCUIT_OPEN in one outage.
        long t = flapUntilAnOpeningIsLeftOut();
        log.changed(CIRCUIT_OPEN, DEGRADED, DOWN, t + 100_000);
        log.changed(DEGRADED, CIRCUIT_OPEN, DOWN, t + 200_000);      // left out again: the same outage
        log.changed(CIRCUIT_OPEN, UP, null, t + 300_000);
        log.changed(UP, DEGRADED, DOWN, 20_000_000);                 // left out
        log.changed(DEGRADED, CIRCUIT_OPEN, DOWN, 20_000_100);       // left out
        log.changed(CIRCUIT_OPEN, DEGRADED, DOWN, 62_000_000);
        log.changed(DEGRADED, CIRCUIT_OPEN, DOWN, 63_000_000);       // a minute on: logged, with this outage
        log.changed(CIRCUIT_OPEN, UP, null, 64_000_000);
        log.changed(UP, DEGRADED, DOWN, 200_000_000);

        assertThat(lines.get(lines.size() - 1)).endsWith("(1 brief outages since the last one logged, 1 of them with the circuit breaker open)");
    }

    @Test
    void aClusterClientThatCannotBeCreatedChangingFromRefusedToWrongpassIsAChangeOfKind() {
        // Jedis' "Could not initialize cluster slots cache." says why only in each seed node's suppressed failure.
        RuntimeException refused = new redis.clients.jedis.exceptions.JedisClusterOperationException("Could not initialize cluster slots cache.");
        refused.addSuppressed(new redis.clients.jedis.exceptions.JedisConnectionException("Failed to connect to 127.0.0.1:7000.",
                new java.net.ConnectException("Connection refused")));
        RuntimeException wrongPass = new redis.clients.jedis.exceptions.JedisClusterOperationException("Could not initialize cluster slots cache.");
        wrongPass.addSuppressed(new redis.clients.jedis.exceptions.JedisAccessControlException(
                "WRONGPASS invalid username-password pair or user is disabled."));
        log.changed(UP, DEGRADED, refused, 1_000);
        log.failed(wrongPass, 2_000);

        assertThat(lines).hasSize(2);
        assertThat(lines.get(1)).contains("is still failing, now: ").contains("WRONGPASS");
    }

    @Test
    void aClockSteppedBackDoesNotSilenceTheNextBreakerOpening() {
        long tenHours = 36_000_000_000L;
        for (int i = 0; i < OutageLog.MAX_OPENINGS_LOGGED; i++) {
            long t = tenHours + i * 2_000_000L;
            log.changed(UP, DEGRADED, DOWN, t);
            log.changed(DEGRADED, CIRCUIT_OPEN, DOWN, t + 10);
            log.changed(CIRCUIT_OPEN, UP, null, t + 1_000_000);
        }
        log.changed(UP, DEGRADED, DOWN, tenHours + 20_000_000);      // left out: within the minute
        log.changed(DEGRADED, CIRCUIT_OPEN, DOWN, tenHours + 20_000_010); // the sixth in the minute: left out
        log.changed(CIRCUIT_OPEN, UP, null, tenHours + 21_000_000);
        log.changed(UP, DEGRADED, DOWN, tenHours + 22_000_000);      // left out
        log.changed(DEGRADED, CIRCUIT_OPEN, DOWN, 1_000);            // the clock stepped back ten hours

        assertThat(lines).hasSize(1 + 2 * OutageLog.MAX_OPENINGS_LOGGED + 1).endsWith(OPEN + ": IllegalStateException: down");
    }

    @Test
    void anOutageInTheSameMicrosecondAsTheLastOneLoggedIsQuiet() {
        long t0 = 1_000_000_000_000L;
        log.changed(UP, DEGRADED, DOWN, t0);
        log.changed(DEGRADED, UP, null, t0);
        log.changed(UP, DEGRADED, DOWN, t0);
        log.changed(DEGRADED, UP, null, t0 + 1_000_000);
        log.changed(UP, DEGRADED, DOWN, t0 + 2_000_000);

        assertThat(lines).containsExactly(FAILING, RECOVERED);
    }

    @Test
    void describesACauseWithItsRootCauseOnOneBoundedLine() {
        assertThat(OutageLog.describe(null)).isEqualTo("no cause");
        assertThat(OutageLog.describe(new IllegalStateException("pool\r\nempty", new java.io.IOException("refused"))))
                .isEqualTo("IllegalStateException: pool  empty (caused by IOException: refused)");
        String exactly300 = "x".repeat(300 - "IllegalStateException: ".length());
        assertThat(OutageLog.describe(new IllegalStateException(exactly300))).hasSize(300).doesNotEndWith("...");
        assertThat(OutageLog.describe(new IllegalStateException(exactly300 + "y"))).hasSize(300).endsWith("x...");
    }

    @Test
    void aLongOuterMessageIsShortenedBeforeTheRootCauseThatSaysWhy() {
        String pkix = "unable to find valid certification path to requested target";
        Exception handshake = new RuntimeException("javax.net.ssl.SSLHandshakeException: PKIX path building failed: "
                + "sun.security.provider.certpath.SunCertPathBuilderException: " + pkix + " ".repeat(100),
                new IllegalStateException(pkix));
        assertThat(OutageLog.describe(handshake)).hasSize(300).startsWith("RuntimeException: javax.net.ssl.SSLHandshakeException")
                .contains("...").endsWith(" (caused by IllegalStateException: " + pkix + ")");
    }

    @Test
    void aCauseWithoutACauseOfItsOwnIsDescribedWithItsFirstSuppressedFailure() {
        IllegalStateException slots = new IllegalStateException("Could not initialize cluster slots cache.");
        slots.addSuppressed(new IllegalArgumentException("WRONGPASS invalid username-password pair", new java.io.IOException("x")));
        slots.addSuppressed(new IllegalArgumentException("second node"));

        assertThat(OutageLog.describe(slots)).isEqualTo("IllegalStateException: Could not initialize cluster slots cache. "
                + "(first failure: IllegalArgumentException: WRONGPASS invalid username-password pair (caused by IOException: x))");
        assertThat(OutageLog.describe(new RuntimeException("wrapped", slots))).isEqualTo("RuntimeException: wrapped "
                + "(caused by IllegalStateException: Could not initialize cluster slots cache.) "
                + "(first failure: IllegalArgumentException: WRONGPASS invalid username-password pair (caused by IOException: x))");
    }

    @Test
    void linesToALoggerAreWarningsAndInfos() {
        List<String> logged = new ArrayList<>();
        org.slf4j.Logger logger = (org.slf4j.Logger) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {org.slf4j.Logger.class}, (proxy, method, args) -> {
                    logged.add(method.getName() + " " + (args == null ? "" : args[0]));
                    return null;
                });
        OutageLog.Lines to = OutageLog.Lines.to(logger);
        to.warn("down");
        to.info("up");
        assertThat(logged).containsExactly("warn down", "info up");
    }

    @Test
    void anOutageAFailedConnectionCheckStartedIsLeftToTheChecksCallerAndItsEndIsLogged() {
        log.changed(UP, DEGRADED, new OutageLog.CheckFailed(DOWN), 0);
        log.changed(DEGRADED, UP, null, 1_000_000);

        assertThat(lines).containsExactly(RECOVERED);
    }

    @Test
    void anOutageAFailedCheckStartedLeavesTheNextOutageToBeLoggedAtOnce() {
        log.changed(UP, DEGRADED, new OutageLog.CheckFailed(DOWN), 0);
        log.changed(DEGRADED, UP, null, 1_000_000);
        log.changed(UP, DEGRADED, DOWN, 10_000_000);

        assertThat(lines).containsExactly(RECOVERED, FAILING);
    }

    @Test
    void theBreakerOpeningInAnOutageAFailedCheckStartedSaysWhy() {
        log.changed(UP, DEGRADED, new OutageLog.CheckFailed(DOWN), 0);
        log.changed(DEGRADED, CIRCUIT_OPEN, DOWN, 1_000_000);
        log.changed(CIRCUIT_OPEN, UP, null, 2_000_000);

        assertThat(lines).containsExactly(OPEN + ": IllegalStateException: down", RECOVERED);
    }

    @Test
    void aProbeCheckingAFlappingRedisEveryTenSecondsHasOneOutageEndLoggedAMinute() {
        // Each failed check starts an outage that a request's success ends: before, each end was a line.
        for (int i = 0; i < 12; i++) {
            log.changed(UP, DEGRADED, new OutageLog.CheckFailed(DOWN), i * 10_000_000L);
            log.changed(DEGRADED, UP, null, i * 10_000_000L + 2_000_000);
        }
        log.changed(UP, DEGRADED, DOWN, 125_000_000);

        assertThat(lines).containsExactly(RECOVERED, RECOVERED, FAILING + " (10 brief outages since the last one logged)");
    }

    @Test
    void aProbeCheckingARedisWhoseBreakerKeepsOpeningLogsAtMostFiveOpeningsAMinuteWithACount() {
        for (int i = 0; i < 6; i++) {
            log.changed(UP, DEGRADED, new OutageLog.CheckFailed(DOWN), i * 10_000_000L);
            log.changed(DEGRADED, CIRCUIT_OPEN, DOWN, i * 10_000_000L + 1_000_000);
            log.changed(CIRCUIT_OPEN, UP, null, i * 10_000_000L + 5_000_000);
        }
        log.changed(UP, DEGRADED, DOWN, 70_000_000);

        String opening = OPEN + ": IllegalStateException: down";
        assertThat(lines).containsExactly(opening, RECOVERED, opening, RECOVERED, opening, RECOVERED, opening, RECOVERED,
                opening, RECOVERED, FAILING + " (1 brief outages since the last one logged, 1 of them with the circuit breaker open)");
    }

    @Test
    void anOutageAFailedCheckStartedThatIsLeftOutAndLastsIsLoggedAMinuteAfterTheLastOneLeftToTheCaller() {
        log.changed(UP, DEGRADED, new OutageLog.CheckFailed(DOWN), 0);
        log.changed(DEGRADED, UP, null, 1_000_000);
        log.changed(UP, DEGRADED, new OutageLog.CheckFailed(DOWN), 10_000_000);
        log.failed(DOWN, 30_000_000);
        log.failed(DOWN, 59_000_000);
        log.failed(DOWN, 61_000_000);
        log.failed(DOWN, 62_000_000);
        log.changed(DEGRADED, UP, null, 63_000_000);

        assertThat(lines).containsExactly(RECOVERED, FAILING, RECOVERED);
    }

    @Test
    void aFailedCheckDoesNotDelayTheLateStartOfAnotherOutageLeftOut() {
        // From a review: the rule that leaves out outages of failing checks delayed this one's line to 110 s.
        log.changed(UP, DEGRADED, DOWN, 0);
        log.changed(DEGRADED, UP, null, 1_000_000);
        log.changed(UP, DEGRADED, new OutageLog.CheckFailed(DOWN), 50_000_000); // the check's caller logs it
        log.changed(DEGRADED, UP, null, 51_000_000);
        log.changed(UP, DEGRADED, DOWN, 55_000_000); // left out: within a minute of the start at 0
        for (long s = 56; s <= 61; s++) {
            log.failed(DOWN, s * 1_000_000); // it lasts, DEGRADED, no breaker open
        }

        assertThat(lines).containsExactly(FAILING, RECOVERED, RECOVERED, FAILING);
    }

    private static final RuntimeException TIMEOUT = new redis.clients.jedis.exceptions.JedisConnectionException(
            new java.net.SocketTimeoutException("Read timed out"));
    private static final RuntimeException READONLY = new redis.clients.jedis.exceptions.JedisDataException(
            "READONLY You can't write against a read only replica.");
    private static final String STILL_READONLY = "WARN Redis store redis://h:1 is still failing, now: "
            + "JedisDataException: READONLY You can't write against a read only replica.";

    @Test
    void saysOnceWhenAnOutageGoesOnWithAnotherKindOfFailure() {
        // From a trial: a failover started with a timeout (writes paused), then the demoted primary
        // answered READONLY for minutes, and the log said only "Read timed out".
        log.changed(UP, DEGRADED, TIMEOUT, 0);
        log.failed(TIMEOUT, 0);
        log.changed(DEGRADED, CIRCUIT_OPEN, READONLY, 5_000);
        log.failed(READONLY, 5_000);
        log.failed(READONLY, 1_005_000);
        log.failed(READONLY, 2_005_000);

        assertThat(lines).hasSize(3).endsWith(STILL_READONLY);
        assertThat(lines.get(0)).contains("is failing").contains("Read timed out");
        assertThat(lines.get(1)).startsWith(OPEN);
    }

    @Test
    void aKindThatKeepsChangingIsSaidAtMostOnceAMinute() {
        log.changed(UP, DEGRADED, TIMEOUT, 0);
        log.failed(READONLY, 1_000_000);
        log.failed(TIMEOUT, 2_000_000);
        log.failed(READONLY, 3_000_000);
        log.failed(TIMEOUT, 1_000_000 + OutageLog.QUIET_MICROS);

        assertThat(lines).hasSize(3);
        assertThat(lines.get(1)).isEqualTo(STILL_READONLY);
        assertThat(lines.get(2)).contains("is still failing, now: ").contains("Read timed out");
    }

    @Test
    void saysNothingOfFailuresOutsideAnOutageLoggedOrAfterItsEnd() {
        log.failed(READONLY, 0); // health UP: the call's own failure, no outage
        log.changed(UP, DEGRADED, TIMEOUT, 1_000);
        log.changed(DEGRADED, UP, null, 2_000);
        log.changed(UP, DEGRADED, TIMEOUT, 3_000); // within the quiet minute: left out
        log.failed(READONLY, 4_000);

        assertThat(lines).hasSize(2);
    }

    @Test
    void aScriptErrorQuotingReadOnlyIsTheSameKindAsReadOnly() {
        assertThat(OutageLog.kindOf(new redis.clients.jedis.exceptions.JedisDataException(
                "ERR Error running script (call to f_5dc3): @user_script:153: @user_script: 153: "
                        + "-READONLY You can't write against a read only replica.")))
                .isEqualTo(OutageLog.kindOf(READONLY)).isEqualTo("JedisDataException READONLY");
        assertThat(OutageLog.kindOf(TIMEOUT)).isEqualTo("SocketTimeoutException");
        assertThat(OutageLog.kindOf(new redis.clients.jedis.exceptions.JedisDataException("OOM command not allowed")))
                .isEqualTo("JedisDataException OOM");
    }

    @Test
    void aRefusedConnectionAConnectTimeoutAndAnEndOfStreamAreThreeKinds() {
        // Jedis 8 says why a connection failed only in a suppressed exception, under one class and
        // message: the log could not tell a Redis restarting (refused) from one unreachable (timed out).
        RuntimeException refused = connectFailure(new java.net.ConnectException("Connection refused"));
        RuntimeException connectTimeout = connectFailure(new java.net.SocketTimeoutException("Connect timed out"));
        RuntimeException endOfStream = new redis.clients.jedis.exceptions.JedisConnectionException("Unexpected end of stream.");

        assertThat(List.of(OutageLog.kindOf(refused), OutageLog.kindOf(connectTimeout), OutageLog.kindOf(endOfStream))).containsExactly(
                "JedisConnectionException/ConnectException", "JedisConnectionException/SocketTimeoutException", "JedisConnectionException");

        log.changed(UP, DEGRADED, connectTimeout, 0);
        log.failed(connectTimeout, 1_000_000);
        log.failed(refused, 2_000_000);
        assertThat(lines).hasSize(2);
        assertThat(lines.get(1)).contains("is still failing, now: ").contains("Connection refused");
    }

    @Test
    void aClockSteppedBackDoesNotSilenceTheNextChangeOfKind() {
        long tenHours = 36_000_000_000L;
        log.changed(UP, DEGRADED, TIMEOUT, tenHours);
        log.failed(READONLY, tenHours + 1_000_000);
        log.failed(TIMEOUT, 1_000_000); // the clock stepped back ten hours (NTP, a restored VM)

        assertThat(lines).hasSize(3);
        assertThat(lines.get(2)).contains("is still failing, now: ").contains("Read timed out");
    }

    @Test
    void callersReportingInAnotherOrderThanTheyReadTheClockSayOneChangeOfKindAMinute() {
        // A failing call's time is read before the breakers are told, so callers reach the log out of
        // clock order: a reading a little earlier than the last change is not a clock stepped back.
        RuntimeException refused = connectFailure(new java.net.ConnectException("Connection refused"));
        RuntimeException reset = new redis.clients.jedis.exceptions.JedisConnectionException(new java.net.SocketException("Connection reset"));
        log.changed(UP, DEGRADED, reset, 1_000);
        log.failed(refused, 2_003);
        log.failed(reset, 2_002);
        log.failed(refused, 2_001);
        log.failed(reset, 2_000);

        assertThat(lines).hasSize(2);
    }

    @Test
    void aFailureSuppressedUnderAnEndOfStreamIsNotPartOfItsKind() {
        // Closing a pipeline whose connection broke syncs it again, and try-with-resources adds that
        // second failure under the first: the same end of stream, batched or not, is one kind.
        RuntimeException batched = new redis.clients.jedis.exceptions.JedisConnectionException("Unexpected end of stream.");
        batched.addSuppressed(new redis.clients.jedis.exceptions.JedisConnectionException("Attempting to write to a broken connection"));

        assertThat(OutageLog.kindOf(batched)).isEqualTo("JedisConnectionException");
    }

    @Test
    void aClusterClientThatCannotConnectSaysWhetherItWasRefusedOrTimedOut() {
        // A real Jedis Cluster client to a port nobody listens on: its failure nests two deep, and
        // the kind and the line read only one level, so refused and timed out looked the same.
        int port = dev.ratelimit.testing.RedisServer.freePort();
        RuntimeException refused;
        try (redis.clients.jedis.RedisClusterClient cluster = redis.clients.jedis.RedisClusterClient.builder()
                .nodes(java.util.Set.of(new redis.clients.jedis.HostAndPort("127.0.0.1", port))).build()) {
            throw new AssertionError("connected to " + port + ": " + cluster.getClusterNodes());
        } catch (redis.clients.jedis.exceptions.JedisClusterOperationException e) {
            refused = e;
        }
        RuntimeException timedOut = new redis.clients.jedis.exceptions.JedisClusterOperationException("Could not initialize cluster slots cache.");
        timedOut.addSuppressed(connectFailure(new java.net.SocketTimeoutException("Connect timed out")));

        assertThat(OutageLog.kindOf(refused)).isEqualTo("JedisClusterOperationException/JedisConnectionException/ConnectException");
        assertThat(OutageLog.kindOf(timedOut)).isEqualTo("JedisClusterOperationException/JedisConnectionException/SocketTimeoutException");
        assertThat(OutageLog.describe(refused)).isEqualTo("JedisClusterOperationException: Could not initialize cluster slots cache."
                + " (first failure: JedisConnectionException: Failed to connect to 127.0.0.1:" + port + ". (ConnectException: Connection refused))");

        log.changed(UP, DEGRADED, timedOut, 0);
        log.failed(refused, 1_000_000);
        assertThat(lines).hasSize(2);
        assertThat(lines.get(1)).contains("is still failing, now: ").endsWith("(ConnectException: Connection refused))");
    }

    private static RuntimeException connectFailure(Exception why) {
        RuntimeException jedis = new redis.clients.jedis.exceptions.JedisConnectionException("Failed to connect to 127.0.0.1:1.");
        jedis.addSuppressed(why);
        return jedis;
    }

    @Test
    void aConnectionNeverSetUpIsDescribedAsJedisSaidIt() {
        redis.clients.jedis.exceptions.JedisConnectionException jedis = new redis.clients.jedis.exceptions.JedisConnectionException(
                "Failed to connect to 127.0.0.1:1.", new java.net.ConnectException("Connection refused"));

        assertThat(OutageLog.describe(new FreshConnectionFactory.NotConnected(jedis))).isEqualTo(OutageLog.describe(jedis))
                .isEqualTo("JedisConnectionException: Failed to connect to 127.0.0.1:1. (caused by ConnectException: Connection refused)");
    }
}
