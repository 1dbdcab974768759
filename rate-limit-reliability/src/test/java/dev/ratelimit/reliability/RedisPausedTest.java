package dev.ratelimit.reliability;

import dev.ratelimit.testing.RedisServer;
import dev.ratelimit.testing.Resp;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redis stops answering under load without closing a connection: frozen by SIGSTOP (a hung process,
 * a VM stall) or holding every command by {@code CLIENT PAUSE} (a slow server). The requests do not
 * hang with it: each waits at most about the Redis timeout (for a pooled connection, then for the
 * reply), and once the circuit breaker opens they are decided locally at once. Measured: latency
 * p50/p99/max before, during and after the pause; asserted generously: no request during the pause
 * takes longer than twice the timeout plus {@link #SLACK_MICROS} of scheduling on a loaded machine.
 */
@Tag("reliability")
class RedisPausedTest {
    /** Room for a loaded two-core machine: thread scheduling, GC, the HTTP round trip. */
    private static final long SLACK_MICROS = 800_000;
    private static final List<String> rows = new ArrayList<>();

    @AfterAll
    static void report() {
        Report.section("Redis frozen or paused under load (2 instances, " + Scale.faultThreads() + " threads, "
                + Scale.outage().toSeconds() + " s pause, LOCAL_FALLBACK, timeout " + Faults.TIMEOUT + ")",
                "| pause | requests | latency before | latency during the pause | latency after | statuses during | 5xx or lost | shared again after |\n"
                        + "|---|---|---|---|---|---|---|---|\n" + String.join("\n", rows));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"SIGSTOP", "CLIENT PAUSE"})
    void requestsWaitNoLongerThanTheTimeoutWhileRedisHangs(String how) {
        List<String> keys = Faults.keys(Faults.LOAD_KEYS);
        long logMark = AppLog.mark();
        List<Exchange> all;
        long pausing;
        long resuming;
        long resumed;
        long shared;
        try (RedisServer redis = RedisServer.start();
             Apps apps = Apps.start(2, Apps.env(redis.url(), "RATE_LIMIT_CONFIG", Faults.configFile(),
                     "RATE_LIMIT_FAILURE_MODE", "LOCAL_FALLBACK", "RATE_LIMIT_FALLBACK_SHARE", "0.5",
                     "RATE_LIMIT_REDIS_TIMEOUT", Faults.TIMEOUT)).warmUp("/api/scan")) {
            SharedProbe probe = new SharedProbe(apps.uris(), "/api/reports", Faults.PROBE_LIMIT, 1);
            try (ClosedLoad load = ClosedLoad.start(apps.uris(), Scale.faultThreads(), Faults.plan(keys))) {
                load.runFor(Scale.steady());
                pausing = WallClock.now();
                if (how.equals("SIGSTOP")) {
                    redis.pause();
                } else {
                    redis.clientPause(Scale.outage().toMillis());
                }
                load.runFor(Scale.outage());
                resuming = WallClock.now();
                if (how.equals("SIGSTOP")) {
                    redis.resume();
                }
                // CLIENT PAUSE lifts itself after its time (CLIENT UNPAUSE would wait in the queue too).
                Awaitility.await("redis answering").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10))
                        .until(() -> Resp.ping(redis.port()));
                resumed = WallClock.now();
                Awaitility.await("shared limiting after the pause").atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(25)).until(probe::shared);
                shared = WallClock.now();
                load.runFor(Scale.steady());
                load.stop();
                all = load.exchanges();
            }
        }
        Latencies before = Latencies.of(Faults.where(all, e -> e.answeredMicros() < pausing));
        List<Exchange> during = Faults.where(all, e -> e.sentMicros() >= pausing && e.sentMicros() < resuming);
        Latencies paused = Latencies.of(during);
        Latencies after = Latencies.of(Faults.where(all, e -> e.sentMicros() >= shared));
        rows.add(Report.fmt("| %s | %d | %s | %s | %s | %s | %d | %s |", how, all.size(), before.summary(), paused.summary(),
                after.summary(), Faults.statuses(during), Faults.brokenAnswers(all), Report.ms(shared - resumed)));

        assertThat(Faults.brokenAnswers(all)).as("5xx or no answer").isZero();
        assertThat(all).as("local fallback: never a 503").noneMatch(e -> e.status() == 503);
        assertThat(paused.count()).as("requests during the pause").isPositive();
        assertThat(paused.max()).as("slowest request during the pause (us)").isLessThanOrEqualTo(2 * Faults.TIMEOUT_MICROS + SLACK_MICROS);
        assertThat(shared - resumed).as("shared again after the pause (us)").isLessThanOrEqualTo(5_000_000);
        // The fault happened, and the instances decided without Redis meanwhile: answers of the local
        // fallback (its share of the limit, capacity 10 of 20) during the pause.
        String localLimit = Long.toString(Faults.HALF_SCAN_LIMIT.policies().get(0).limit());
        assertThat(during).as("answers of the local fallback (X-RateLimit-Limit %s) during the pause", localLimit)
                .anyMatch(e -> localLimit.equals(e.limit()));
        // "Once the circuit breaker opens they are decided locally at once": it did open, on each instance.
        // (A breaker that never opens keeps every request within 2 x timeout too, so the latency bound alone
        // cannot tell.)
        Map<String, List<String>> storeLines = AppLog.linesSince(logMark).stream().filter(l -> l.contains("RedisStore"))
                .collect(Collectors.groupingBy(AppLog::pool));
        assertThat(storeLines.keySet()).as("store lines from the two instances: %s", storeLines).hasSize(2);
        storeLines.forEach((instance, lines) -> assertThat(lines).as("%s: the circuit breaker opened during the pause", instance)
                .anyMatch(l -> l.contains("circuit breaker open")));
    }
}
