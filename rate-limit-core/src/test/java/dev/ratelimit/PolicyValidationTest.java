package dev.ratelimit;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PolicyValidationTest {

    @Test
    void rejectsZeroCapacityNamingTheFieldAndValue() {
        assertThatThrownBy(() -> Policy.tokenBucket(0, 1, Duration.ofSeconds(1)))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("capacity: must be > 0, was 0");
    }

    @Test
    void rejectsNegativeRefill() {
        assertThatThrownBy(() -> Policy.tokenBucket(10, -3, Duration.ofSeconds(1)))
                .hasMessage("refillTokens: must be > 0, was -3");
    }

    @Test
    void rejectsZeroAndNegativeWindows() {
        assertThatThrownBy(() -> Policy.fixedWindow(5, Duration.ZERO)).hasMessage("window: must be > 0, was PT0S");
        assertThatThrownBy(() -> Policy.slidingWindowCounter(5, Duration.ofSeconds(-1))).hasMessage("window: must be > 0, was PT-1S");
        assertThatThrownBy(() -> Policy.fixedWindow(5, null)).hasMessage("window: must be set, was null");
    }

    @Test
    void rejectsSubMicrosecondDurations() {
        assertThatThrownBy(() -> Policy.gcra(1, Duration.ofNanos(1500), 1)).hasMessage("period: must be whole microseconds, was PT0.0000015S");
    }

    @Test
    void rejectsWindowsLongerThanFourHundredDays() {
        assertThatThrownBy(() -> Policy.fixedWindow(1, Duration.ofDays(401)))
                .hasMessage("window: must be at most 400 days (PT9600H), was PT9624H");
    }

    @Test
    void refusesSlidingLogsLargerThanTheirMemoryCap() {
        assertThatThrownBy(() -> Policy.slidingWindowLog(10_001, Duration.ofHours(1)))
                .hasMessageStartingWith("limit: must be at most 10000 for a sliding window log")
                .hasMessageContaining("was 10001");
    }

    @Test
    void refusesPoliciesBeyondExactArithmetic() {
        assertThatThrownBy(() -> Policy.slidingWindowCounter(1_000_000_000L, Duration.ofDays(365)))
                .hasMessageStartingWith("limit: is too large for exact arithmetic");
        assertThatThrownBy(() -> Policy.tokenBucket(1_000_000_000_000L, 1, Duration.ofDays(1)))
                .hasMessageStartingWith("capacity: is too large for exact arithmetic");
        // A value, not a product, is named: it was "was more" for the largest long.
        assertThatThrownBy(() -> Policy.fixedWindow(Long.MAX_VALUE, Duration.ofMinutes(1)))
                .hasMessageStartingWith("limit: is too large for exact arithmetic")
                .hasMessageContaining("was " + Long.MAX_VALUE);
    }

    @Test
    void aCapacityTimesUnitsPerTokenJustBelow2To53IsAcceptedAndExactly2To53Refused() {
        // 3 tokens per 2 µs: a token is 2 units, 3 come back per µs, so refilling is fast enough.
        long exactlyAtTheBound = 1L << 52; // x 2 units = 2^53
        assertThatThrownBy(() -> Policy.tokenBucket(exactlyAtTheBound, 3, Duration.ofNanos(2_000)))
                .hasMessageStartingWith("capacity: is too large for exact arithmetic");
        assertThat(Policy.tokenBucket(exactlyAtTheBound - 1, 3, Duration.ofNanos(2_000)).capacity()).isEqualTo(exactlyAtTheBound - 1);
        // A token of 3 units (2 per 3 µs): floor(2^53 / 3) tokens make 2^53 - 2 units, still exact.
        long largestBelow = (1L << 53) / 3;
        assertThat(Policy.tokenBucket(largestBelow, 2, Duration.ofNanos(3_000)).capacity()).isEqualTo(largestBelow);
        assertThat(Policy.gcra(2, Duration.ofNanos(3_000), largestBelow).burst()).isEqualTo(largestBelow);
        assertThatThrownBy(() -> Policy.tokenBucket(largestBelow + 1, 2, Duration.ofNanos(3_000)))
                .hasMessageStartingWith("capacity: is too large for exact arithmetic");
    }

    @Test
    void refusesRefillRatesBeyondExactArithmeticWhichLuaWouldRoundToZero() {
        // Redis' Lua holds numbers as doubles: a rate of 2^53 units per µs or more is not exact there.
        assertThatThrownBy(() -> Policy.tokenBucket(10, Long.MAX_VALUE, Duration.ofNanos(1_000)))
                .hasMessageStartingWith("refillTokens: is too large for exact arithmetic");
        assertThatThrownBy(() -> Policy.tokenBucket(10, 1L << 53, Duration.ofNanos(1_000)))
                .hasMessageStartingWith("refillTokens: is too large for exact arithmetic");
        assertThatThrownBy(() -> Policy.gcra(Long.MAX_VALUE, Duration.ofNanos(1_000), 5))
                .hasMessageStartingWith("rate: is too large for exact arithmetic");
        assertThat(Policy.tokenBucket(10, (1L << 53) - 1, Duration.ofNanos(1_000)).refillUnitsPerMicro()).isEqualTo((1L << 53) - 1);
        // Judged on the reduced rate: 2^58 tokens per 10^6 µs is 2^52 units per µs (gcd 2^6).
        assertThat(Policy.tokenBucket(10, 1L << 58, Duration.ofSeconds(1)).refillUnitsPerMicro()).isEqualTo(1L << 52);
        assertThatThrownBy(() -> Policy.tokenBucket(10, 1L << 59, Duration.ofSeconds(1)))
                .hasMessageStartingWith("refillTokens: is too large for exact arithmetic");
    }

    @Test
    void reducesRatesToExactFractions() {
        TokenBucket thousandPerDay = Policy.tokenBucket(1000, 1000, Duration.ofDays(1));
        assertThat(thousandPerDay.unitsPerToken()).isEqualTo(86_400_000L);
        assertThat(thousandPerDay.refillUnitsPerMicro()).isEqualTo(1);
        TokenBucket threePerSecond = TokenBucket.perSecond(3, 3);
        assertThat(threePerSecond.unitsPerToken()).isEqualTo(1_000_000L);
        assertThat(threePerSecond.refillUnitsPerMicro()).isEqualTo(3);
    }

    @Test
    void reportsTheWindowAClientSeesInHeaders() {
        assertThat(Policy.tokenBucket(10, 1, Duration.ofSeconds(1)).window()).isEqualTo(Duration.ofSeconds(10));
        assertThat(Policy.gcra(3, Duration.ofSeconds(1), 2).window()).isEqualTo(Duration.ofNanos(666_667_000));
        assertThat(Policy.fixedWindow(5, Duration.ofMinutes(1)).window()).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void limitNamesMustBeHeaderAndKeySafe() {
        assertThatThrownBy(() -> Limit.of("bad name\r\n", Policy.fixedWindow(1, Duration.ofSeconds(1))))
                .hasMessage("name: must be 1-64 characters of [A-Za-z0-9._-], was \"bad name??\"");
        assertThatThrownBy(() -> new Limit("ok", java.util.List.of()))
                .hasMessage("policies: must name at least one policy, was []");
    }

    @Test
    void fingerprintChangesWithThePolicyNumbers() {
        Limit a = Limit.of("scan", TokenBucket.perSecond(10, 1));
        Limit b = Limit.of("scan", TokenBucket.perSecond(10, 2));
        assertThat(a.fingerprint()).hasSize(16).isEqualTo(Limit.of("scan", TokenBucket.perSecond(10, 1)).fingerprint()).isNotEqualTo(b.fingerprint());
    }

    @Test
    void fingerprintsAreWrittenOutNotTakenFromTheJdksRecordToString() {
        // Fixed values: the same limit has the same fingerprint on every JVM, whatever format the
        // JDK gives records' toString.
        Limit composite = Limit.of("scan", TokenBucket.perSecond(10, 1), Policy.fixedWindow(1000, Duration.ofHours(1)),
                Policy.slidingWindowLog(5, Duration.ofMinutes(1)), Policy.slidingWindowCounter(100, Duration.ofMillis(1500)),
                Policy.gcra(3, Duration.ofSeconds(1), 6));
        assertThat(composite.fingerprint()).isEqualTo("7825dca6f8c38df3");
        assertThat(Limit.of("login", Policy.fixedWindow(5, Duration.ofMinutes(1))).fingerprint()).isEqualTo("4a0b07c723f2e954");
    }

    @Test
    void limitOfANullPolicyNamesItsIndexLikeTheConstructor() {
        TokenBucket bucket = TokenBucket.perSecond(10, 1);
        assertThatThrownBy(() -> Limit.of("scan", bucket, null))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("policies[1]: must not be null");
        assertThatThrownBy(() -> Limit.of("scan", (Policy[]) null))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("policies: must name at least one policy, was null");
    }

    @Test
    void rejectsZeroCountsOfEveryAlgorithmNamingTheField() {
        assertThatThrownBy(() -> Policy.fixedWindow(0, Duration.ofMinutes(1))).hasMessage("limit: must be > 0, was 0");
        assertThatThrownBy(() -> Policy.slidingWindowLog(0, Duration.ofMinutes(1))).hasMessage("limit: must be > 0, was 0");
        assertThatThrownBy(() -> Policy.slidingWindowCounter(0, Duration.ofMinutes(1))).hasMessage("limit: must be > 0, was 0");
        assertThatThrownBy(() -> Policy.gcra(0, Duration.ofSeconds(1), 5)).hasMessage("rate: must be > 0, was 0");
        assertThatThrownBy(() -> Policy.gcra(3, Duration.ofSeconds(1), 0)).hasMessage("burst: must be > 0, was 0");
    }

    @Test
    void acceptsASlidingLogOfExactlyItsMemoryCap() {
        assertThat(Policy.slidingWindowLog(SlidingWindowLog.MAX_LIMIT, Duration.ofHours(1)).limit()).isEqualTo(10_000);
    }

    @Test
    void aLimitCombinesAtMostEightPolicies() {
        Policy p = Policy.fixedWindow(1, Duration.ofSeconds(1));
        assertThat(Limit.of("eight", p, p, p, p, p, p, p, p).policies()).hasSize(Limit.MAX_POLICIES);
        assertThatThrownBy(() -> Limit.of("nine", p, p, p, p, p, p, p, p, p))
                .hasMessage("policies: must have at most 8 policies, was 9");
        assertThat(Limit.of("one", p).isComposite()).isFalse();
        assertThat(Limit.of("two", p, p).isComposite()).isTrue();
    }

    @Test
    void everyAlgorithmHasTheNameUsedInConfiguration() {
        assertThat(Policy.tokenBucket(1, 1, Duration.ofSeconds(1)).algorithm()).isEqualTo("token_bucket");
        assertThat(Policy.fixedWindow(1, Duration.ofSeconds(1)).algorithm()).isEqualTo("fixed_window");
        assertThat(Policy.slidingWindowLog(1, Duration.ofSeconds(1)).algorithm()).isEqualTo("sliding_window_log");
        assertThat(Policy.slidingWindowCounter(1, Duration.ofSeconds(1)).algorithm()).isEqualTo("sliding_window_counter");
        assertThat(Policy.gcra(1, Duration.ofSeconds(1), 1).algorithm()).isEqualTo("gcra");
    }

    @Test
    void refusesBucketsAndBurstsThatTakeLongerThanTwoToThe52MicrosecondsToRecover() {
        // 2 per 400 days: a token (or emission interval) is 1.728 * 10^13 µs. 260 of them are within
        // 2^52 µs (4.5036 * 10^15), 261 are not, though 261 * 1.728 * 10^13 is still below 2^53.
        Duration days400 = Duration.ofDays(400);
        assertThat(Policy.tokenBucket(260, 2, days400).capacity()).isEqualTo(260);
        assertThatThrownBy(() -> Policy.tokenBucket(261, 2, days400))
                .hasMessageStartingWith("capacity: takes too long to refill from empty");
        assertThat(Policy.gcra(2, days400, 260).burst()).isEqualTo(260);
        assertThatThrownBy(() -> Policy.gcra(2, days400, 261))
                .hasMessageStartingWith("burst: takes too long to refill from empty");
    }

    @Test
    void judgesGcraRatesAndBurstsOnTheReducedFraction() {
        // 2^56 per 10^6 µs is 2^50 per 15,625 µs (gcd 2^6): exact, though 2^56 itself is not.
        Gcra fast = Policy.gcra(1L << 56, Duration.ofSeconds(1), 10);
        assertThat(fast.ratePerUnit()).isEqualTo(1L << 50);
        assertThat(fast.intervalUnits()).isEqualTo(15_625);
        // A burst of 2^60 emission intervals of 10^6 µs wraps a long to 0: refused, not taken for no time at all.
        assertThatThrownBy(() -> Policy.gcra(1, Duration.ofSeconds(1), 1L << 60))
                .hasMessageStartingWith("burst: is too large for exact arithmetic");
    }
}
