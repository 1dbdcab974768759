package dev.ratelimit.reliability;

import dev.ratelimit.Limit;
import dev.ratelimit.config.EndpointRule;
import dev.ratelimit.config.RateLimitConfig;
import dev.ratelimit.example.limits.AdmissionBound;
import dev.ratelimit.testing.RedisServer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The soak: two app instances sharing Redis, the bundled tiers (free, pro, enterprise x scan,
 * reports, login), {@value #CLIENTS_PER_LIMIT} clients per tier and endpoint each sending at twice
 * its limit's sustained rate, alternating between the instances, for {@link Scale#soak()}. Every
 * window, the heap after a full GC and the latency p99 are sampled. Asserted: no error (anything but
 * 200 or 429, or no answer), no client admitted more than its bound, no heap growth trend (the
 * median slope between samples after the first windows), and a p99 that does not grow (the late windows' against the early
 * windows') nor jump (the worst window's against the median).
 */
@Tag("reliability")
class SoakTest {
    private static final int CLIENTS_PER_LIMIT = 4;
    private static final int WORKERS = 16;

    @Test
    void twiceTheLimitsOnEveryTierWithoutErrorsOverAdmissionHeapGrowthOrSlowerAnswers() {
        RateLimitConfig config = RateLimitConfig.defaults();
        String run = UUID.randomUUID().toString().substring(0, 8);
        Map<String, String> prefixes = Map.of("free", "sk-free-", "pro", "sk-pro-", "enterprise", "sk-ent-");
        List<PacedLoad.Client> clients = new ArrayList<>();
        List<Limit> limits = new ArrayList<>();
        long start = WallClock.now() + 200_000;
        for (EndpointRule rule : config.endpoints()) {
            if (!rule.method().equals("GET") && !rule.method().equals("POST")) {
                continue;
            }
            for (String tier : config.tiers().keySet()) {
                Limit limit = config.limit(tier, rule.name()).orElseThrow();
                long interval = (long) (1e6 / (2 * AdmissionBound.sustainedPerSecond(limit, rule.cost())));
                for (int c = 0; c < CLIENTS_PER_LIMIT; c++) {
                    clients.add(new PacedLoad.Client(prefixes.get(tier) + "soak-" + run + "-" + rule.name() + "-" + c, rule.method(), rule.path(),
                            interval, start + c * interval / CLIENTS_PER_LIMIT));
                    limits.add(limit);
                }
            }
        }
        Map<Integer, Long> errorStatuses;
        List<long[]> heap = new ArrayList<>();
        List<Long> p99s = new ArrayList<>();
        List<String> windows = new ArrayList<>();
        long windowMicros = Scale.soakWindow().toNanos() / 1_000;
        int windowCount = (int) (Scale.soak().toNanos() / 1_000 / windowMicros);
        try (RedisServer redis = RedisServer.start();
             Apps apps = Apps.start(2, Apps.env(redis.url(), "RATE_LIMIT_FAILURE_MODE", "FAIL_CLOSED", "RATE_LIMIT_REDIS_TIMEOUT", "1s"));
             PacedLoad load = PacedLoad.start(apps.uris(), clients, WORKERS)) {
            long began = WallClock.now();
            for (int w = 1; w <= windowCount; w++) {
                long end = began + w * windowMicros;
                Awaitility.await("soak window " + w).atMost(Scale.soakWindow().plusSeconds(30)).pollInterval(Duration.ofMillis(20))
                        .until(() -> WallClock.now() >= end);
                Latencies l = load.closeWindow();
                long used = Heap.usedAfterGc();
                heap.add(new long[] {WallClock.now() - began, used});
                p99s.add(l.percentile(0.99));
                windows.add(Report.fmt("| %d | %.0f s | %d | %s | %s |", w, (WallClock.now() - began) / 1e6, l.count(), l.summary(),
                        Report.mib(used)));
            }
            errorStatuses = load.errorStatuses();
        }
        long sent = clients.stream().mapToLong(c -> c.sent.get()).sum();
        long admitted = clients.stream().mapToLong(c -> c.admitted.get()).sum();
        long rejected = clients.stream().mapToLong(c -> c.rejected.get()).sum();
        long errors = clients.stream().mapToLong(c -> c.errors.get()).sum();
        long overBound = 0;
        for (int i = 0; i < clients.size(); i++) {
            PacedLoad.Client c = clients.get(i);
            if (c.firstSent >= 0 && c.admitted.get() > AdmissionBound.maxRequests(limits.get(i), 1, c.firstSent, c.lastAnswered,
                    Duration.ofNanos(Bounds.SKEW * 1_000))) {
                overBound++;
            }
        }
        // The trend after the first fifth of the run (JIT, pools and caches warming up).
        List<long[]> steady = heap.subList(Math.max(1, heap.size() / 5), heap.size());
        double mibPerMinute = Heap.slope(steady.stream().mapToDouble(s -> s[0] / 60e6).toArray(),
                steady.stream().mapToLong(s -> s[1]).toArray()) / 1048576.0;
        List<Long> afterWarmUp = p99s.subList(1, p99s.size());
        long[] steadyP99 = afterWarmUp.stream().mapToLong(Long::longValue).sorted().toArray();
        long medianP99 = steadyP99[steadyP99.length / 2];
        long worstP99 = steadyP99[steadyP99.length - 1];
        int third = Math.max(1, afterWarmUp.size() / 3);
        long earlyP99 = median(afterWarmUp.subList(0, third));
        long lateP99 = median(afterWarmUp.subList(afterWarmUp.size() - third, afterWarmUp.size()));
        double seconds = Scale.soak().toSeconds();
        Report.section("Soak: 2 instances on Redis, bundled tiers, " + clients.size() + " clients at twice their limits, "
                        + Scale.soak().toSeconds() + " s",
                Report.fmt("Requests %d (%.0f/s): 200 %d, 429 %d, errors %d %s. Clients over their bound: %d of %d. "
                                + "Heap trend after warm-up: %.2f MiB/min. p99 per window: median %s, worst %s; median of the first third %s, "
                                + "of the last third %s.%n%n",
                        sent, sent / seconds, admitted, rejected, errors, errorStatuses, overBound, clients.size(), mibPerMinute,
                        Report.ms(medianP99), Report.ms(worstP99), Report.ms(earlyP99), Report.ms(lateP99))
                        + "| window | at | requests | latency | heap after full GC |\n|---|---|---|---|---|\n" + String.join("\n", windows));

        assertThat(errors).as("answers other than 200 or 429, or none: %s", errorStatuses).isZero();
        assertThat(overBound).as("clients admitted more than their bound").isZero();
        assertThat(rejected).as("at twice the limits, some are refused").isPositive();
        assertThat(mibPerMinute).as("heap trend, MiB per minute").isLessThan(Scale.maxHeapTrendMibPerMinute());
        // Generous: the machine is shared, so one window may catch another build's burst; a service getting
        // slower would show in the late windows against the early ones.
        assertThat(lateP99).as("p99 of the late windows against the early ones %s", afterWarmUp).isLessThanOrEqualTo(2 * earlyP99 + 50_000);
        assertThat(worstP99).as("worst window p99 against the median window p99 %s", Arrays.toString(steadyP99))
                .isLessThanOrEqualTo(5 * medianP99 + 250_000);
    }

    private static long median(List<Long> values) {
        long[] sorted = values.stream().mapToLong(Long::longValue).sorted().toArray();
        return sorted[sorted.length / 2];
    }
}
