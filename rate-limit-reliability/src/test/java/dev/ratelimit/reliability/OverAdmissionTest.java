package dev.ratelimit.reliability;

import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.config.RateLimitConfig;
import dev.ratelimit.example.limits.PolicyText;
import dev.ratelimit.testing.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * For each algorithm (and a composite), two app instances sharing one Redis, 32 client threads each,
 * all on one API key, back to back: the key is admitted no more than its algorithm promises, over the
 * whole run ({@code AdmissionBound}) and in every window or interval (see {@link Bounds}).
 *
 * <p>The instances fail closed with a 2 s Redis timeout: a request Redis could not decide in time is a
 * 503 (counted, and expected to be 0), never a local decision that would blur what Redis admitted.
 * Each algorithm gets its own tier (by key prefix) so one pair of instances serves them all.
 */
@Tag("reliability")
class OverAdmissionTest {
    private static final String CONFIG = """
            {
              "defaultTier": "tb",
              "tierPrefixes": { "sk-tb-": "tb", "sk-gcra-": "gcra", "sk-fw-": "fw", "sk-log-": "log", "sk-swc-": "swc", "sk-mix-": "mix" },
              "endpoints": [ { "method": "GET", "path": "/api/scan", "name": "scan" } ],
              "tiers": {
                "tb":   { "scan": { "algorithm": "token_bucket", "capacity": 100, "refillTokens": 200, "refillPeriod": "1s" } },
                "gcra": { "scan": { "algorithm": "gcra", "rate": 200, "period": "1s", "burst": 100 } },
                "fw":   { "scan": { "algorithm": "fixed_window", "limit": 200, "window": "1s" } },
                "log":  { "scan": { "algorithm": "sliding_window_log", "limit": 200, "window": "1s" } },
                "swc":  { "scan": { "algorithm": "sliding_window_counter", "limit": 200, "window": "1s" } },
                "mix":  { "scan": [ { "algorithm": "token_bucket", "capacity": 50, "refillTokens": 100, "refillPeriod": "1s" },
                                    { "algorithm": "fixed_window", "limit": 150, "window": "1s" } ] }
              }
            }
            """;
    private static RedisServer redis;
    private static Apps apps;
    private static RateLimitConfig config;
    private static final List<String> rows = new ArrayList<>();

    @BeforeAll
    static void start() {
        String file = Apps.config("over-admission", CONFIG);
        config = RateLimitConfig.fromJson(Path.of(file));
        redis = RedisServer.start();
        try {
            apps = Apps.start(2, Apps.env(redis.url(), "RATE_LIMIT_CONFIG", file, "RATE_LIMIT_FAILURE_MODE", "FAIL_CLOSED",
                    "RATE_LIMIT_REDIS_TIMEOUT", "2s")).warmUp("/api/scan");
        } catch (RuntimeException | Error e) {
            redis.close();
            throw e;
        }
    }

    @AfterAll
    static void stop() {
        try {
            if (apps != null) {
                apps.close();
            }
        } finally {
            redis.close();
        }
        Report.section("Over-admission: 2 instances x " + Scale.threadsPerInstance() + " threads on one key, "
                + Scale.perAlgorithm().toSeconds() + " s per algorithm (Redis, FAIL_CLOSED, 2 s timeout)",
                "| algorithm | policy | requests | admitted | 429 | other | whole-run bound | strict check |\n"
                        + "|---|---|---|---|---|---|---|---|\n" + String.join("\n", rows));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"tb", "gcra", "fw", "log", "swc", "mix"})
    void sixtyFourThreadsOnTwoInstancesNeverGetMoreThanTheAlgorithmAllows(String tier) {
        Limit limit = config.tiers().get(tier).get("scan");
        String key = "sk-" + tier + "-" + UUID.randomUUID();
        int perInstance = Scale.threadsPerInstance();
        List<Exchange> all;
        try (ClosedLoad load = ClosedLoad.start(apps.uris(), 2 * perInstance,
                (thread, n) -> new ClosedLoad.Request(thread / perInstance, "/api/scan", key))) {
            load.runFor(Scale.perAlgorithm());
            load.stop();
            all = load.exchanges();
        }
        List<Exchange> admitted = all.stream().filter(Exchange::admitted).toList();
        long rejected = all.stream().filter(e -> e.status() == 429).count();
        long other = all.size() - admitted.size() - rejected;
        long bound = Bounds.wholeRun(limit, all);
        List<Bounds.Check> checks = new ArrayList<>();
        for (Policy p : limit.policies()) {
            checks.add(Bounds.check(p, admitted));
        }
        rows.add(Report.fmt("| %s | %s | %d | %d | %d | %d | %d | %s |", limit.policies().size() > 1 ? "composite"
                : limit.policies().get(0).algorithm(), PolicyText.describe(limit), all.size(), admitted.size(), rejected, other,
                bound, String.join("; ", checks.stream().map(Bounds.Check::toString).toList())));

        assertThat(admitted.size()).as("admitted over the run, bound %d", bound).isPositive().isLessThanOrEqualTo((int) bound);
        assertThat(checks).as("strict checks").allMatch(Bounds.Check::holds);
        assertThat(rejected).as("the limit was reached").isPositive();
        assertThat(other).as("answers other than 200 or 429 (503: Redis slower than 2 s; -1: no answer)").isZero();
    }
}
