package dev.ratelimit.reliability;

import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.config.RateLimitConfig;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * What the fault scenarios share: the configuration (a token bucket of 20, +20/s on {@code /api/scan}
 * for the load; a fixed window of 1000 an hour on {@code /api/reports} for {@link SharedProbe}s),
 * the load plan (32 threads over 8 keys, each thread alternating between the two instances) and
 * the counting.
 */
final class Faults {
    static final String CONFIG = """
            {
              "defaultTier": "free",
              "endpoints": [ { "method": "GET", "path": "/api/scan", "name": "scan" },
                             { "method": "GET", "path": "/api/reports", "name": "reports" } ],
              "tiers": {
                "free": {
                  "scan": { "algorithm": "token_bucket", "capacity": 20, "refillTokens": 20, "refillPeriod": "1s" },
                  "reports": { "algorithm": "fixed_window", "limit": 1000, "window": "1h" }
                }
              }
            }
            """;
    static final long PROBE_LIMIT = 1000;
    /** The Redis timeout of the fault scenarios (connect and read): what a request waits at most for Redis. */
    static final String TIMEOUT = "200ms";
    static final long TIMEOUT_MICROS = 200_000;
    static final int LOAD_KEYS = 8;
    /**
     * What each of two instances enforces alone on the scan limit under LOCAL_FALLBACK with a share of
     * 0.5: capacity and refill halved (the store's documented scaling, the README's "Redis store" section).
     */
    static final Limit HALF_SCAN_LIMIT = Limit.of("scan", Policy.tokenBucket(10, 10, Duration.ofSeconds(1)));

    private Faults() {
    }

    static String configFile() {
        return Apps.config("faults", CONFIG);
    }

    static Limit scanLimit() {
        return RateLimitConfig.fromJson(Path.of(configFile())).tiers().get("free").get("scan");
    }

    /** The load's keys, fresh for each run. */
    static List<String> keys(int count) {
        String run = UUID.randomUUID().toString().substring(0, 8);
        return java.util.stream.IntStream.range(0, count).mapToObj(i -> "sk-fault-" + run + "-" + i).toList();
    }

    /** Thread {@code t} sends on key {@code t % keys}, alternating between the two instances. */
    static ClosedLoad.Plan plan(List<String> keys) {
        return (thread, n) -> new ClosedLoad.Request((int) ((thread + n) % 2), "/api/scan", keys.get(thread % keys.size()));
    }

    /** Status -> count, e.g. {200=812, 429=3312}; -1 is no answer. */
    static Map<Integer, Long> statuses(List<Exchange> exchanges) {
        return exchanges.stream().collect(Collectors.groupingBy(Exchange::status, TreeMap::new, Collectors.counting()));
    }

    static List<Exchange> where(List<Exchange> exchanges, Predicate<Exchange> p) {
        return exchanges.stream().filter(p).toList();
    }

    /** Answers that are a 5xx other than 503, or no answer at all. */
    static long brokenAnswers(List<Exchange> exchanges) {
        return exchanges.stream().filter(e -> e.status() == Exchange.NO_ANSWER || (e.status() >= 500 && e.status() != 503)).count();
    }
}
