package dev.ratelimit.servlet.headers;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.Source;
import dev.ratelimit.Verdict;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class LimitHeadersTest {
    private static final long NOW = 1_767_225_600_250_000L;   // 2026-01-01T00:00:00.25Z in µs

    private static Decision decision(Verdict verdict, Policy policy, long remaining, long resetAfter, long retryAfter) {
        return new Decision(verdict, Source.STORE, policy, policy.limit(), remaining, resetAfter, retryAfter);
    }

    private static Map<String, String> written(LimitHeaders headers, HeaderStyle style, Decision d, long retryAfter) {
        Map<String, String> out = new LinkedHashMap<>();
        headers.write(out::put, style, "pro", d, NOW, retryAfter);
        return out;
    }

    @ParameterizedTest(name = "{0} µs -> {1} s")
    @CsvSource({"1, 1", "200000, 1", "999999, 1", "1000000, 1", "1000001, 2", "1500000, 2", "59000000, 59", "3599000001, 3600"})
    void roundsRetryAfterUpAndNeverBelowOneSecond(long micros, long seconds) {
        Policy p = Policy.fixedWindow(5, Duration.ofMinutes(1));
        assertThat(LimitHeaders.retryAfterSeconds(decision(Verdict.REJECTED, p, 0, micros, micros))).isEqualTo(seconds);
    }

    @Test
    void hasNoRetryAfterWhenAllowedOrNeverPassable() {
        Policy p = Policy.fixedWindow(5, Duration.ofMinutes(1));
        assertThat(LimitHeaders.retryAfterSeconds(decision(Verdict.ALLOWED, p, 4, 1_000, 0))).isZero();
        assertThat(LimitHeaders.retryAfterSeconds(decision(Verdict.COST_EXCEEDS_LIMIT, p, 5, 0, Decision.NEVER))).isZero();
    }

    @Test
    void aCustomStoresRejectionWithoutAWaitGetsTheTimeUntilItsQuotaIsBack() {
        Policy p = Policy.fixedWindow(5, Duration.ofMinutes(1));
        assertThat(LimitHeaders.retryAfterSeconds(decision(Verdict.REJECTED, p, 0, 42_500_000, Decision.NEVER))).isEqualTo(43);
        assertThat(LimitHeaders.retryAfterSeconds(decision(Verdict.REJECTED, p, 0, 0, Decision.NEVER))).isEqualTo(1);
    }

    @Test
    void hugeWaitsAndResetsFromACustomStoreDoNotOverflowIntoSmallOnes() {
        Policy p = Policy.fixedWindow(5, Duration.ofMinutes(1));
        Decision endless = decision(Verdict.REJECTED, p, 0, Long.MAX_VALUE, Long.MAX_VALUE);
        LimitHeaders headers = LimitHeaders.of(Limit.of("scan", p));

        assertThat(LimitHeaders.retryAfterSeconds(endless)).isEqualTo(9_223_372_036_855L);
        assertThat(written(headers, HeaderStyle.X, endless, 9_223_372_036_855L))
                .containsEntry("X-RateLimit-Reset", "9223372036855")
                .containsEntry("Retry-After", "9223372036855");
    }

    @Test
    void writesBothSetsFromOneDecision() {
        Policy bucket = Policy.tokenBucket(100, 10, Duration.ofSeconds(1));
        LimitHeaders headers = LimitHeaders.of(Limit.of("scan", bucket));

        assertThat(written(headers, HeaderStyle.BOTH, decision(Verdict.ALLOWED, bucket, 97, 300_000, 0), 0)).containsExactly(
                Map.entry("X-RateLimit-Limit", "100"),
                Map.entry("X-RateLimit-Remaining", "97"),
                Map.entry("X-RateLimit-Reset", "1767225601"),   // 00:00:00.55, rounded up
                Map.entry("X-RateLimit-Tier", "pro"),
                Map.entry("RateLimit-Policy", "\"scan\";q=100;w=10"),
                Map.entry("RateLimit", "\"scan\";r=97;t=1"));
    }

    @Test
    void makesTOfARejectionEqualToRetryAfter() {
        Policy window = Policy.fixedWindow(5, Duration.ofMinutes(1));
        LimitHeaders headers = LimitHeaders.of(Limit.of("login", window));

        Map<String, String> out = written(headers, HeaderStyle.IETF, decision(Verdict.REJECTED, window, 0, 59_750_000, 59_750_000), 60);

        assertThat(out).containsExactly(
                Map.entry("RateLimit-Policy", "\"login\";q=5;w=60"),
                Map.entry("RateLimit", "\"login\";r=0;t=60"),
                Map.entry("Retry-After", "60"));
    }

    @Test
    void namesEachPolicyOfACompositeAndRoundsWindowsUpToWholeSeconds() {
        Policy burst = Policy.tokenBucket(5, 10, Duration.ofSeconds(1));        // refills in 0.5 s
        Policy sustained = Policy.slidingWindowLog(1000, Duration.ofMillis(3_600_500));
        Policy daily = Policy.gcra(1000, Duration.ofDays(1), 20);
        LimitHeaders headers = LimitHeaders.of(Limit.of("search", burst, sustained, daily));

        assertThat(headers.policyField()).isEqualTo("\"search\";q=5;w=1, \"search-1\";q=1000;w=3601, \"search-2\";q=20;w=1728");
        assertThat(headers.itemName(decision(Verdict.ALLOWED, sustained, 3, 0, 0))).isEqualTo("search-1");
        assertThat(headers.itemName(decision(Verdict.ALLOWED, daily, 3, 0, 0))).isEqualTo("search-2");
        // A store of your own may answer with an equal policy, not the limit's own object.
        assertThat(headers.itemName(decision(Verdict.ALLOWED, Policy.gcra(1000, Duration.ofDays(1), 20), 3, 0, 0)))
                .isEqualTo("search-2");
    }

    @Test
    void aLocalFallbackDecisionReportsTheLimitItEnforcesUnderThePolicysName() {
        Policy bucket = Policy.tokenBucket(100, 10, Duration.ofSeconds(1));
        LimitHeaders headers = LimitHeaders.of(Limit.of("scan", bucket));
        // This instance's share while Redis is down: a quarter of the limit, same algorithm and window.
        Policy share = Policy.tokenBucket(25, 10, Duration.ofSeconds(1));
        Decision fallback = new Decision(Verdict.ALLOWED, Source.LOCAL_FALLBACK, share, 25, 24, 100_000, 0);

        Map<String, String> out = new LinkedHashMap<>();
        headers.write(out::put, HeaderStyle.BOTH, "pro", fallback, NOW, 0);

        assertThat(out).containsEntry("X-RateLimit-Limit", "25").containsEntry("X-RateLimit-Remaining", "24")
                .containsEntry("RateLimit", "\"scan\";r=24;t=1")
                // The quota r counts against, as X-RateLimit-Limit says: not the 100 Redis enforces when up.
                .containsEntry("RateLimit-Policy", "\"scan\";q=25;w=3");
    }

    @Test
    void theHeadersOfTheFallbacksShareDescribeEveryPolicyOfACompositeAsThisInstanceEnforcesIt() {
        // A half share of 10 a second and 1000 an hour, as RateLimiter.limitFor(LOCAL_FALLBACK) gives it.
        Policy burst = Policy.fixedWindow(5, Duration.ofSeconds(1));
        Policy sustained = Policy.fixedWindow(500, Duration.ofHours(1));
        LimitHeaders share = LimitHeaders.of(Limit.of("search", burst, sustained));
        Decision fallback = new Decision(Verdict.ALLOWED, Source.LOCAL_FALLBACK, sustained, 500, 400, 1_000_000, 0);

        Map<String, String> out = new LinkedHashMap<>();
        share.write(out::put, HeaderStyle.IETF, "pro", fallback, NOW, 0);

        assertThat(out).containsEntry("RateLimit-Policy", "\"search\";q=5;w=1, \"search-1\";q=500;w=3600")
                .containsEntry("RateLimit", "\"search-1\";r=400;t=1");
        assertThat(share.itemName(fallback)).isEqualTo("search-1");
    }

    @Test
    void aPolicyTheLimitDoesNotHoldIsDescribedAsTheFirstItemWithItsOwnQuota() {
        // A custom store deciding by another limit without saying so (RateLimiter.limitFor): r still agrees with its item.
        LimitHeaders headers = LimitHeaders.of(Limit.of("search", Policy.fixedWindow(10, Duration.ofSeconds(1)),
                Policy.fixedWindow(1000, Duration.ofHours(1))));
        Decision foreign = new Decision(Verdict.ALLOWED, Source.STORE, Policy.fixedWindow(3, Duration.ofSeconds(2)), 3, 2, 1_000_000, 0);

        Map<String, String> out = new LinkedHashMap<>();
        headers.write(out::put, HeaderStyle.IETF, "pro", foreign, NOW, 0);

        assertThat(out).containsEntry("RateLimit-Policy", "\"search\";q=3;w=2, \"search-1\";q=1000;w=3600")
                .containsEntry("RateLimit", "\"search\";r=2;t=1");
    }

    @Test
    void saysOnlyWhatItKnowsWhenTheStoreFailedOpen() {
        Policy bucket = Policy.tokenBucket(100, 10, Duration.ofSeconds(1));
        LimitHeaders headers = LimitHeaders.of(Limit.of("scan", bucket));
        Decision failOpen = new Decision(Verdict.ALLOWED, Source.FAIL_OPEN, bucket, 100, 100, 0, 0);

        Map<String, String> out = new LinkedHashMap<>();
        headers.write(out::put, HeaderStyle.BOTH, "pro", failOpen, NOW, 0);

        assertThat(out).containsExactly(Map.entry("X-RateLimit-Tier", "pro"), Map.entry("RateLimit-Policy", "\"scan\";q=100;w=10"));
    }

    @Test
    void saysOnlyWhatItKnowsWhenNoOneCouldDecide() {
        Policy bucket = Policy.tokenBucket(100, 10, Duration.ofSeconds(1));
        LimitHeaders headers = LimitHeaders.of(Limit.of("scan", bucket));
        Decision unavailable = new Decision(Verdict.STORE_UNAVAILABLE, Source.LOCAL_FALLBACK, bucket, 100, 0, 0, 400_000);

        Map<String, String> out = new LinkedHashMap<>();
        headers.write(out::put, HeaderStyle.BOTH, "pro", unavailable, NOW, 1);

        assertThat(out).containsExactly(Map.entry("X-RateLimit-Tier", "pro"), Map.entry("RateLimit-Policy", "\"scan\";q=100;w=10"),
                Map.entry("Retry-After", "1"));
    }
}
