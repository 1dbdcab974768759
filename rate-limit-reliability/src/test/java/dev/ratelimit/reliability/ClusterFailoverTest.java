package dev.ratelimit.reliability;

import dev.ratelimit.Limit;
import dev.ratelimit.testing.RedisCluster;
import dev.ratelimit.testing.RedisServer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redis Cluster, 3 masters with a replica each, two app instances, 32 client threads on 8 keys
 spread over the masters: a master is killed (SIGKILL) and its replica promoted. Asserted: no 5xx,
 * no lost request, shared limiting on every master again once the cluster has failed over, and
 * every key within its bound after that. Measured and reported, not asserted: how much each key
 * got beyond its bound over the whole run, on the failed master and on the others, since the
 * failover loses the writes not yet replicated and the instances decide locally while it lasts.
 */
@Tag("reliability")
class ClusterFailoverTest {

    @Test
    void limitingResumesAfterAMasterDiesAndItsReplicaTakesOver() {
        Limit limit = Faults.scanLimit();
        List<String> keys = Faults.keys(Faults.LOAD_KEYS);
        List<Exchange> all;
        List<String> onVictim;
        long killing;
        long promotedAt;
        long recovered;
        long logMark = AppLog.mark();
        try (RedisCluster cluster = RedisCluster.start(3, 1);
             Apps apps = Apps.start(2, Apps.env(cluster.url(), "RATE_LIMIT_CONFIG", Faults.configFile(),
                     "RATE_LIMIT_FAILURE_MODE", "LOCAL_FALLBACK", "RATE_LIMIT_FALLBACK_SHARE", "0.5",
                     "RATE_LIMIT_REDIS_TIMEOUT", Faults.TIMEOUT)).warmUp("/api/scan")) {
            Map<String, RedisServer> masterOf = keys.stream().collect(Collectors.toMap(k -> k,
                    k -> cluster.masterOf(cluster.slot(RedisKeyLayout.hashTag(k)))));
            // The master holding most of the load's keys (at least 3 of 8) dies.
            RedisServer victim = keys.stream().map(masterOf::get)
                    .collect(Collectors.groupingBy(m -> m, Collectors.counting())).entrySet().stream()
                    .max(Map.Entry.comparingByValue()).orElseThrow().getKey();
            onVictim = keys.stream().filter(k -> masterOf.get(k) == victim).toList();
            // 24 fresh keys at a time: every master serves some of them (all three miss one with p < 1e-4).
            SharedProbe probe = new SharedProbe(apps.uris(), "/api/reports", Faults.PROBE_LIMIT, 24);
            assertThat(probe.shared()).as("shared before the failover").isTrue();
            try (ClosedLoad load = ClosedLoad.start(apps.uris(), Scale.faultThreads(), Faults.plan(keys))) {
                load.runFor(Scale.steady());
                killing = WallClock.now();
                cluster.killMasterAndAwaitPromotion(cluster.currentMasters().indexOf(victim));
                promotedAt = WallClock.now();
                Awaitility.await("shared limiting after the failover").atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(25)).until(probe::shared);
                recovered = WallClock.now();
                load.runFor(Scale.steady().multipliedBy(2));
                load.stop();
                all = load.exchanges();
            }
        }
        long victimExcess = 0;
        long otherExcess = 0;
        long worstExcess = 0;
        long worstAfter = Long.MIN_VALUE;
        for (String key : keys) {
            List<Exchange> ofKey = Faults.where(all, e -> e.key().equals(key));
            long excess = Math.max(0, ofKey.stream().filter(Exchange::admitted).count() - Bounds.wholeRun(limit, ofKey));
            if (onVictim.contains(key)) {
                victimExcess += excess;
            } else {
                otherExcess += excess;
            }
            worstExcess = Math.max(worstExcess, excess);
            List<Exchange> after = Faults.where(ofKey, e -> e.sentMicros() >= recovered);
            worstAfter = Math.max(worstAfter, after.stream().filter(Exchange::admitted).count() - Bounds.wholeRun(limit, after));
        }
        List<Exchange> failover = Faults.where(all, e -> e.sentMicros() >= killing && e.sentMicros() < recovered);
        Map<String, List<String>> storeLines = AppLog.linesSince(logMark).stream().filter(l -> l.contains("RedisStore"))
                .collect(Collectors.groupingBy(AppLog::pool));
        long admittedTotal = all.stream().filter(Exchange::admitted).count();
        Report.section("Redis Cluster failover under load (3 masters + 3 replicas, 2 instances, " + Scale.faultThreads()
                        + " threads on " + Faults.LOAD_KEYS + " keys, LOCAL_FALLBACK share 0.5, timeout " + Faults.TIMEOUT + ")",
                Report.fmt("""
                        | figure | value |
                        |---|---|
                        | requests | %d (admitted %d) |
                        | keys on the killed master | %d of %d |
                        | kill to replica promoted (cluster healthy) | %s |
                        | promoted to shared limiting on every master (probe) | %s |
                        | statuses from the kill to shared limiting | %s |
                        | latency from the kill to shared limiting | %s |
                        | latency before the kill | %s |
                        | 5xx or lost | %d |
                        | RedisStore log lines per instance | %s |
                        | over-admission, whole run, keys on the killed master | %d requests in total |
                        | over-admission, whole run, keys on the other masters | %d requests in total |
                        | over-admission, worst key | %d requests over capacity + rate*T |
                        | after recovery, worst key: admitted - bound | %d |
                        """, all.size(), admittedTotal, onVictim.size(), keys.size(), Report.ms(promotedAt - killing),
                        Report.ms(recovered - promotedAt), Faults.statuses(failover), Latencies.of(failover).summary(),
                        Latencies.of(Faults.where(all, e -> e.answeredMicros() < killing)).summary(), Faults.brokenAnswers(all),
                        storeLines.values().stream().map(l -> String.valueOf(l.size())).collect(Collectors.joining(", ")), victimExcess,
                        otherExcess, worstExcess, worstAfter));

        assertThat(Faults.brokenAnswers(all)).as("5xx or no answer").isZero();
        assertThat(all).as("local fallback: never a 503").noneMatch(e -> e.status() == 503);
        assertThat(onVictim).as("some load keys live on the killed master").isNotEmpty();
        assertThat(worstAfter).as("after the failover every key is within its bound again").isLessThanOrEqualTo(0);
        // The fault reached the load: the killed master's keys were decided by the local fallback (its share
        // of the limit, capacity 10 of 20) between the kill and shared limiting.
        String localLimit = Long.toString(Faults.HALF_SCAN_LIMIT.policies().get(0).limit());
        assertThat(Faults.where(failover, e -> onVictim.contains(e.key())))
                .as("answers of the local fallback (X-RateLimit-Limit %s) for the killed master's keys", localLimit)
                .anyMatch(e -> localLimit.equals(e.limit()));
        // One breaker per master: the dead master's opens on each instance (the store's "circuit breaker open"
        // line), although the other masters keep answering. With one breaker for the whole store their
        // successes kept it closed and the dead master's clients waited out the timeouts on every request.
        assertThat(storeLines.keySet()).as("store lines from the two instances: %s", storeLines).hasSize(2);
        storeLines.forEach((instance, lines) -> assertThat(lines).as("%s: the dead master's breaker opened", instance)
                .anyMatch(l -> l.contains("circuit breaker open")));
        // While one master is down, failures and successes interleave: the store must not log each flap.
        storeLines.forEach((instance, lines) -> assertThat(lines.stream().filter(l -> l.contains(" is failing; ")))
                .as("%s: 'is failing' lines, at most one a minute: %s", instance, lines).hasSizeLessThanOrEqualTo(1));
    }
}
