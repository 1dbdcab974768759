package dev.ratelimit.example.limits;

import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.TokenBucket;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The most each algorithm may admit for one key over an interval. */
class AdmissionBoundTest {
    private static final Duration NO_SKEW = Duration.ZERO;

    @Test
    void aTokenBucketAdmitsItsCapacityPlusWhatRefillsMeanwhile() {
        Limit scan = Limit.of("scan", TokenBucket.perSecond(10, 1));

        assertThat(bound(scan, 1, "00:00:00", "00:00:00", NO_SKEW)).isEqualTo(10);
        assertThat(bound(scan, 1, "00:00:00", "00:00:02.999", NO_SKEW)).isEqualTo(12);
        assertThat(bound(scan, 1, "00:00:00", "00:00:03", NO_SKEW)).isEqualTo(13);
        assertThat(bound(scan, 2, "00:00:00", "00:00:03", NO_SKEW)).as("cost 2 takes two units").isEqualTo(6);
    }

    @Test
    void gcraIsBoundedLikeItsTokenBucket() {
        Limit l = Limit.of("g", Policy.gcra(10, Duration.ofSeconds(1), 5));

        assertThat(bound(l, 1, "00:00:00", "00:00:01.5", NO_SKEW)).isEqualTo(20);
    }

    @Test
    void aFixedWindowAdmitsItsLimitPerWindowTouchedWidenedByTheSkew() {
        Limit login = Limit.of("login", Policy.fixedWindow(5, Duration.ofMinutes(1)));

        assertThat(bound(login, 1, "00:00:20", "00:00:50", NO_SKEW)).isEqualTo(5);
        assertThat(bound(login, 1, "00:00:20", "00:00:50", Duration.ofSeconds(1))).isEqualTo(5);
        assertThat(bound(login, 1, "00:00:59.5", "00:01:00.5", NO_SKEW)).isEqualTo(10);
        assertThat(bound(login, 1, "00:00:30", "00:00:59.5", Duration.ofSeconds(1))).isEqualTo(10);
        assertThat(bound(login, 1, "00:00:30", "00:02:30", NO_SKEW)).isEqualTo(15);
    }

    @Test
    void aSlidingWindowCounterHasTheFixedWindowsBoundPerAlignedWindow() {
        Limit reports = Limit.of("reports", Policy.slidingWindowCounter(100, Duration.ofHours(1)));

        assertThat(bound(reports, 1, "00:10:00", "00:20:00", NO_SKEW)).isEqualTo(100);
        assertThat(bound(reports, 1, "00:50:00", "01:10:00", NO_SKEW)).isEqualTo(200);
    }

    @Test
    void aSlidingWindowLogAdmitsItsLimitPerWindowLengthStarted() {
        Limit l = Limit.of("log", Policy.slidingWindowLog(5, Duration.ofSeconds(10)));

        assertThat(bound(l, 1, "00:00:03", "00:00:12.999", NO_SKEW)).isEqualTo(5);
        assertThat(bound(l, 1, "00:00:03", "00:00:13", NO_SKEW)).isEqualTo(10);
        assertThat(bound(l, 1, "00:00:03", "00:00:28", NO_SKEW)).isEqualTo(15);
    }

    @Test
    void aCompositeLimitIsBoundedByItsTightestPolicy() {
        Limit l = Limit.of("both", TokenBucket.perSecond(10, 10), Policy.fixedWindow(15, Duration.ofMinutes(1)));

        assertThat(bound(l, 1, "00:00:00", "00:00:01", NO_SKEW)).isEqualTo(15);
        assertThat(bound(l, 1, "00:00:00", "00:00:00.2", NO_SKEW)).isEqualTo(12);
    }

    @Test
    void oneWindowOverItsLimitIsCaughtWhereTheWholeRunsBoundIsNot() {
        Limit l = Limit.of("w", Policy.fixedWindow(5, Duration.ofMillis(500)));
        // 6 admissions in [00:00:00.5, 00:00:01), none in the window before or after, the run ending at 1.6s.
        long[] sends = {micros("00:00:00.600"), micros("00:00:00.620"), micros("00:00:00.640"), micros("00:00:00.660"),
                micros("00:00:00.680"), micros("00:00:00.700")};
        long[] answers = {micros("00:00:00.610"), micros("00:00:00.630"), micros("00:00:00.650"), micros("00:00:00.670"),
                micros("00:00:00.690"), micros("00:00:00.710")};
        Duration skew = Duration.ofMillis(50);

        assertThat(bound(l, 1, "00:00:00.100", "00:00:01.600", skew)).as("the whole run: 4 windows of 5").isEqualTo(20);
        assertThat(AdmissionBound.fullestWindow(l, 1, sends, answers, skew)).isEqualTo(new AdmissionBound.Count(6, 5));
        assertThat(AdmissionBound.fullestWindow(Limit.of("c", Policy.slidingWindowCounter(5, Duration.ofMillis(500))), 1,
                sends, answers, skew)).isEqualTo(new AdmissionBound.Count(6, 5));
        assertThat(AdmissionBound.fullestWindow(l, 2, sends, answers, skew)).as("cost 2: 2 per window").isEqualTo(new AdmissionBound.Count(6, 2));
    }

    @Test
    void anAdmissionThatMayHaveFallenInEitherWindowCountsInNeither() {
        Limit l = Limit.of("w", Policy.fixedWindow(2, Duration.ofSeconds(1)));
        // Three at the edge of 00:00:01 (within the skew of it), two well inside the window after.
        long[] sends = {micros("00:00:00.990"), micros("00:00:00.995"), micros("00:00:01.020"), micros("00:00:01.500"),
                micros("00:00:01.600")};
        long[] answers = {micros("00:00:00.994"), micros("00:00:00.999"), micros("00:00:01.030"), micros("00:00:01.510"),
                micros("00:00:01.610")};

        assertThat(AdmissionBound.fullestWindow(l, 1, sends, answers, Duration.ofMillis(50))).isEqualTo(new AdmissionBound.Count(2, 2));
        assertThat(AdmissionBound.fullestWindow(l, 1, sends, answers, Duration.ZERO)).isEqualTo(new AdmissionBound.Count(3, 2));
        assertThat(AdmissionBound.fullestWindow(Limit.of("b", TokenBucket.perSecond(2, 1)), 1, sends, answers, Duration.ZERO))
                .as("no windowed policy").isNull();
    }

    @Test
    void theSustainedRateIsTheRefillRateOrLimitPerWindowOfTheTightestPolicy() {
        assertThat(AdmissionBound.sustainedPerSecond(Limit.of("a", TokenBucket.perSecond(10, 1)), 1)).isEqualTo(1.0);
        assertThat(AdmissionBound.sustainedPerSecond(Limit.of("b", Policy.fixedWindow(5, Duration.ofMinutes(1))), 1))
                .isCloseTo(5 / 60.0, within(1e-12));
        assertThat(AdmissionBound.sustainedPerSecond(Limit.of("c", TokenBucket.perSecond(100, 10),
                Policy.slidingWindowCounter(3600, Duration.ofHours(1))), 2)).isEqualTo(0.5);
    }

    private static long bound(Limit limit, long cost, String from, String to, Duration skew) {
        return AdmissionBound.maxRequests(limit, cost, micros(from), micros(to), skew);
    }

    private static long micros(String time) {
        Instant i = Instant.parse("2026-01-01T" + time + "Z");
        return i.getEpochSecond() * 1_000_000 + i.getNano() / 1_000;
    }
}
