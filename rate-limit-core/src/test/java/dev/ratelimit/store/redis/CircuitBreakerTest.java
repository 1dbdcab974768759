package dev.ratelimit.store.redis;

import dev.ratelimit.StoreHealth;
import org.junit.jupiter.api.Test;

import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** One breaker alone: it opens after {@code threshold} consecutive failures and lets one probe through at a time. */
class CircuitBreakerTest {
    private static final long OPEN_MICROS = 5_000_000;
    /** Redis refusing a call: what a Redis shutting down does to the calls after those it answered. */
    private static final JedisConnectionException DOWN = new JedisConnectionException("java.net.ConnectException: Connection refused");
    private static final JedisConnectionException TIMEOUT = new JedisConnectionException(new SocketTimeoutException("Read timed out"));
    private static final JedisDataException ERROR_REPLY = new JedisDataException("OOM command not allowed when used memory > 'maxmemory'.");
    private static final long T0 = 1_000_000_000_000L;

    private final CircuitBreaker breaker = new CircuitBreaker(3, OPEN_MICROS, (previous, current, cause) -> { });

    private void fail(long now) {
        assertThat(breaker.allowCall(now)).isTrue();
        breaker.onFailure(now, now, DOWN);
    }

    @Test
    void aSuccessStartsTheCountOfConsecutiveFailuresAgain() {
        fail(T0);
        fail(T0);
        assertThat(breaker.allowCall(T0)).isTrue();
        breaker.onSuccess(T0, () -> T0);
        assertThat(breaker.health()).isEqualTo(StoreHealth.UP);

        fail(T0);
        fail(T0);
        assertThat(breaker.health()).as("2 consecutive failures, under the threshold of 3").isEqualTo(StoreHealth.DEGRADED);
        assertThat(breaker.allowCall(T0)).isTrue();
        breaker.onFailure(T0, T0, DOWN);
        assertThat(breaker.health()).isEqualTo(StoreHealth.CIRCUIT_OPEN);
    }

    @Test
    void onceTheOpenPeriodIsOverOnlyOneProbeGoesThroughUntilItsOutcomeIsKnown() {
        fail(T0);
        fail(T0);
        fail(T0);
        assertThat(breaker.allowCall(T0 + OPEN_MICROS - 1)).as("still open").isFalse();

        assertThat(breaker.allowCall(T0 + OPEN_MICROS)).as("the probe").isTrue();
        assertThat(breaker.allowCall(T0 + OPEN_MICROS)).as("a second caller while the probe is out").isFalse();
        assertThat(breaker.allowCall(T0 + 2 * OPEN_MICROS)).as("even long after").isFalse();

        breaker.onFailure(T0 + OPEN_MICROS, T0 + OPEN_MICROS, DOWN);
        assertThat(breaker.allowCall(T0 + 2 * OPEN_MICROS - 1)).as("the failed probe opened it again").isFalse();
        assertThat(breaker.allowCall(T0 + 2 * OPEN_MICROS)).as("the next probe").isTrue();
        breaker.onSuccess(T0 + 2 * OPEN_MICROS, () -> T0 + 2 * OPEN_MICROS + 1);
        assertThat(breaker.health()).isEqualTo(StoreHealth.UP);
        assertThat(breaker.allowCall(T0 + 2 * OPEN_MICROS)).isTrue();
    }

    /** Reports, on a thread of its own, the failure of a call let through before the circuit opened. */
    private void lateFailureOfAnEarlierCall(long now) throws InterruptedException {
        Thread other = new Thread(() -> breaker.onFailure(now, now, DOWN));
        other.start();
        other.join();
    }

    @Test
    void aCallSentBeforeTheCircuitOpenedThatFailsLateDoesNotRestartTheOpenPeriod() throws InterruptedException {
        fail(T0);
        fail(T0);
        fail(T0);
        lateFailureOfAnEarlierCall(T0 + OPEN_MICROS / 2);

        assertThat(breaker.health()).isEqualTo(StoreHealth.CIRCUIT_OPEN);
        assertThat(breaker.lastNeededMicros()).isEqualTo(T0 + OPEN_MICROS / 2);
        assertThat(breaker.allowCall(T0 + OPEN_MICROS)).as("the probe, one period after the circuit opened").isTrue();
    }

    @Test
    void aCallSentBeforeTheCircuitOpenedThatFailsLateDoesNotLetASecondProbeThrough() throws InterruptedException {
        fail(T0);
        fail(T0);
        fail(T0);
        assertThat(breaker.allowCall(T0 + OPEN_MICROS)).as("the probe").isTrue();
        lateFailureOfAnEarlierCall(T0 + OPEN_MICROS);

        assertThat(breaker.allowCall(T0 + 3 * OPEN_MICROS)).as("another caller while the probe is out").isFalse();
        breaker.onFailure(T0 + 3 * OPEN_MICROS, T0 + 3 * OPEN_MICROS, DOWN);
        assertThat(breaker.allowCall(T0 + 4 * OPEN_MICROS - 1)).as("the probe's failure opened it again").isFalse();
        assertThat(breaker.allowCall(T0 + 4 * OPEN_MICROS)).as("the next probe").isTrue();
    }

    @Test
    void aCallSentBeforeTheCircuitOpenedThatWentToAnotherNodeDoesNotLetASecondProbeThrough() throws InterruptedException {
        fail(T0);
        fail(T0);
        fail(T0);
        assertThat(breaker.allowCall(T0 + OPEN_MICROS)).as("the probe").isTrue();
        Thread other = new Thread(breaker::callWentElsewhere);
        other.start();
        other.join();

        assertThat(breaker.allowCall(T0 + OPEN_MICROS)).as("another caller while the probe is out").isFalse();
        breaker.callWentElsewhere();
        assertThat(breaker.allowCall(T0 + OPEN_MICROS)).as("the probe went elsewhere: the next call probes").isTrue();
    }

    /** Reports, on a thread of its own, the success of a call sent at {@code sentAt}. */
    private void lateSuccess(long sentAt, long now) throws InterruptedException {
        Thread other = new Thread(() -> breaker.onSuccess(sentAt, () -> now));
        other.start();
        other.join();
    }

    @Test
    void aCallSentBeforeACallThatFailedThatSucceedsLateNeitherBringsTheBreakerBackUpNorRestartsTheCount() throws InterruptedException {
        List<String> changes = new ArrayList<>();
        CircuitBreaker watched = new CircuitBreaker(3, OPEN_MICROS, (previous, current, cause) -> changes.add(previous + "->" + current));
        assertThat(watched.allowCall(T0)).as("a call sent while Redis still answered").isTrue();
        assertThat(watched.allowCall(T0 + 10)).isTrue();
        watched.onFailure(T0 + 10, T0 + 20, DOWN);
        watched.onSuccess(T0, () -> T0 + 30);

        assertThat(watched.health()).as("Redis answered that call before it failed").isEqualTo(StoreHealth.DEGRADED);
        assertThat(watched.allowCall(T0 + 40)).isTrue();
        watched.onFailure(T0 + 40, T0 + 50, DOWN);
        assertThat(watched.allowCall(T0 + 60)).isTrue();
        watched.onFailure(T0 + 60, T0 + 70, DOWN);
        assertThat(watched.health()).as("three failures in a row, in the order the calls were sent").isEqualTo(StoreHealth.CIRCUIT_OPEN);
        assertThat(changes).containsExactly("UP->DEGRADED", "DEGRADED->CIRCUIT_OPEN");
    }

    @Test
    void timeoutsReportedWhileCallsSentAfterThemSucceedAreNotConsecutiveFailures() {
        // A call's timeout is reported a whole timeout (100 ms) after it was sent; calls sent meanwhile are
        // answered in a millisecond. Sent: A (fails), S1, B (fails), S2, C (fails), D. No three failures in a row.
        assertThat(breaker.allowCall(T0)).isTrue();
        assertThat(breaker.allowCall(T0 + 500)).isTrue();
        breaker.onSuccess(T0 + 500, () -> T0 + 700);
        assertThat(breaker.allowCall(T0 + 1_000)).isTrue();
        assertThat(breaker.allowCall(T0 + 1_500)).isTrue();
        breaker.onSuccess(T0 + 1_500, () -> T0 + 1_700);
        assertThat(breaker.allowCall(T0 + 2_000)).isTrue();
        breaker.onFailure(T0, T0 + 100_000, TIMEOUT);
        assertThat(breaker.allowCall(T0 + 100_200)).isTrue();
        breaker.onFailure(T0 + 1_000, T0 + 101_000, TIMEOUT);
        breaker.onSuccess(T0 + 100_200, () -> T0 + 101_200);
        breaker.onFailure(T0 + 2_000, T0 + 102_000, TIMEOUT);

        assertThat(breaker.health()).as("D, sent after every call that failed, succeeded: the count started again")
                .isEqualTo(StoreHealth.DEGRADED);
    }

    @Test
    void anErrorReplyOrATimeoutOfALaterCallDoesNotMakeAnEarlierCallsSuccessCountForNothing() {
        // Redis answered the error reply, and a timeout is reported long after its call: neither says Redis
        // had stopped answering when the slower success was sent. (Counted so, 1% of fast error replies among
        // 200 callers kept the breaker open for 99% of decisions.)
        for (RuntimeException failure : List.of(ERROR_REPLY, TIMEOUT)) {
            CircuitBreaker fresh = new CircuitBreaker(3, OPEN_MICROS, (previous, current, cause) -> { });
            assertThat(fresh.allowCall(T0)).as("a slow call").isTrue();
            assertThat(fresh.allowCall(T0 + 10)).isTrue();
            fresh.onFailure(T0 + 10, T0 + 20, failure);
            fresh.onSuccess(T0, () -> T0 + 5_000);
            assertThat(fresh.health()).as("after %s", failure.getClass().getSimpleName()).isEqualTo(StoreHealth.UP);
        }
    }

    @Test
    void aCallSentAfterTheLastFailureThatSucceedsBringsTheBreakerBackUp() {
        fail(T0);
        assertThat(breaker.allowCall(T0 + 1)).isTrue();
        breaker.onSuccess(T0 + 1, () -> T0 + 2);
        assertThat(breaker.health()).isEqualTo(StoreHealth.UP);
    }

    @Test
    void aCallSentBeforeTheCircuitOpenedThatSucceedsLateDoesNotCloseItNorTakeTheProbesPlace() throws InterruptedException {
        fail(T0);
        fail(T0);
        fail(T0 + 100);
        lateSuccess(T0 + 50, T0 + 200);
        assertThat(breaker.health()).isEqualTo(StoreHealth.CIRCUIT_OPEN);
        assertThat(breaker.allowCall(T0 + 300)).as("still open").isFalse();

        assertThat(breaker.allowCall(T0 + 100 + OPEN_MICROS)).as("the probe").isTrue();
        lateSuccess(T0 + 60, T0 + 100 + OPEN_MICROS);
        assertThat(breaker.health()).as("not the probe's success").isEqualTo(StoreHealth.CIRCUIT_OPEN);
        assertThat(breaker.allowCall(T0 + 100 + OPEN_MICROS)).as("a second caller while the probe is out").isFalse();
        breaker.onSuccess(T0 + 100 + OPEN_MICROS, () -> T0 + 101 + OPEN_MICROS);
        assertThat(breaker.health()).isEqualTo(StoreHealth.UP);
    }

    @Test
    void aSuccessReadOnAClockSteppedBackBeforeTheLastFailureStillCounts() {
        fail(T0);
        long steppedBack = T0 - 60_000_000;
        assertThat(breaker.allowCall(steppedBack)).isTrue();
        breaker.onSuccess(steppedBack, () -> steppedBack + 1);
        assertThat(breaker.health()).as("else a clock stepped back would keep the breaker failing until it caught up").isEqualTo(StoreHealth.UP);
    }

    @Test
    void aCallerThatReadTheClockJustBeforeTheCircuitOpenedIsRefusedNotTakenForAClockSteppedBack() {
        fail(T0);
        fail(T0);
        fail(T0 + 100_000);
        assertThat(breaker.allowCall(T0 + 95_000)).as("read 5 ms before another call's failure opened it").isFalse();
        assertThat(breaker.allowCall(T0 + 100_000 - OPEN_MICROS)).as("read a whole period before").isFalse();
        assertThat(breaker.retryHintMicros(T0 + 95_000)).as("never more than one period").isEqualTo(OPEN_MICROS);
        assertThat(breaker.allowCall(T0 + 100_000 + OPEN_MICROS)).as("the probe, one period after it opened").isTrue();
    }

    @Test
    void aClockSteppedBackByMoreThanAPeriodEndsTheOpenPeriodRatherThanStretchingIt() {
        fail(T0);
        fail(T0);
        fail(T0);
        assertThat(breaker.allowCall(T0 - OPEN_MICROS - 1)).as("the probe, on a clock stepped back").isTrue();
        breaker.onSuccess(T0 - OPEN_MICROS - 1, () -> T0 - OPEN_MICROS);
        assertThat(breaker.health()).isEqualTo(StoreHealth.UP);
    }

    @Test
    void aFirstFailureThatReachesTheThresholdReportsDegradedThenOpen() {
        List<String> changes = new ArrayList<>();
        CircuitBreaker single = new CircuitBreaker(1, OPEN_MICROS, (previous, current, cause) -> changes.add(previous + "->" + current + " " + cause));
        single.onFailure(T0, T0, DOWN);
        assertThat(changes).containsExactly("UP->DEGRADED " + DOWN, "DEGRADED->CIRCUIT_OPEN " + DOWN);
        assertThat(single.health()).isEqualTo(StoreHealth.CIRCUIT_OPEN);
    }

    @Test
    void theRetryHintIsTheRestOfTheOpenPeriodElseOnePeriod() {
        assertThat(breaker.retryHintMicros(T0)).as("closed").isEqualTo(OPEN_MICROS);
        fail(T0);
        assertThat(breaker.retryHintMicros(T0)).as("degraded").isEqualTo(OPEN_MICROS);
        fail(T0);
        fail(T0);
        assertThat(breaker.retryHintMicros(T0 + 2_000_000)).as("open, 2 s in").isEqualTo(OPEN_MICROS - 2_000_000);
        assertThat(breaker.retryHintMicros(T0 + OPEN_MICROS)).as("the open period is over").isEqualTo(OPEN_MICROS);
    }
}
