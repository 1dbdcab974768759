package dev.ratelimit.store.redis;

import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class FallbackLimitsTest {

    @Test
    void countsAreScaledDownButKeptAtLeastOne() {
        assertThat(FallbackLimits.scale(Policy.fixedWindow(10, Duration.ofMinutes(1)), 0.25))
                .isEqualTo(Policy.fixedWindow(2, Duration.ofMinutes(1)));
        assertThat(FallbackLimits.scale(Policy.slidingWindowLog(3, Duration.ofMinutes(1)), 0.1))
                .isEqualTo(Policy.slidingWindowLog(1, Duration.ofMinutes(1)));
        assertThat(FallbackLimits.scale(Policy.slidingWindowCounter(1000, Duration.ofHours(1)), 1.0 / 3))
                .isEqualTo(Policy.slidingWindowCounter(333, Duration.ofHours(1)));
    }

    @Test
    void aProductThatIsAWholeNumberIsThatNumberNotTheOneBelowItsRoundingError() {
        // In doubles 90 * 0.7 is 62.99999999999999 and 98 * (1.0 / 49) 1.9999999999999998.
        assertThat(FallbackLimits.scale(Policy.fixedWindow(90, Duration.ofMinutes(1)), 0.7))
                .isEqualTo(Policy.fixedWindow(63, Duration.ofMinutes(1)));
        assertThat(FallbackLimits.scale(Policy.tokenBucket(90, 90, Duration.ofSeconds(1)), 0.7))
                .as("capacity and refill alike").isEqualTo(Policy.tokenBucket(63, 63, Duration.ofSeconds(1)));
        assertThat(FallbackLimits.scale(Policy.slidingWindowCounter(98, Duration.ofMinutes(1)), 1.0 / 49))
                .isEqualTo(Policy.slidingWindowCounter(2, Duration.ofMinutes(1)));
        for (int n = 2; n <= 64; n++) {
            for (long limit = n; limit <= 20_000; limit += n) {
                assertThat(FallbackLimits.scale(Policy.fixedWindow(limit, Duration.ofMinutes(1)), 1.0 / n).limit())
                        .as("%d at 1/%d", limit, n).isEqualTo(limit / n);
            }
        }
    }

    @Test
    void aLargeCountOrRateWithARealFractionIsNotRoundedUp() {
        // 3,000,000,001 at 0.5 is 1,500,000,000.5, exact in a double: a real half, not rounding error.
        assertThat(FallbackLimits.scale(Policy.fixedWindow(3_000_000_001L, Duration.ofDays(1)), 0.5))
                .isEqualTo(Policy.fixedWindow(1_500_000_000L, Duration.ofDays(1)));
        long limit = 2_000_000_000L;
        assertThat(3 * FallbackLimits.scale(Policy.fixedWindow(limit, Duration.ofHours(1)), 1.0 / 3).limit())
                .as("three instances at 1/3 together").isLessThanOrEqualTo(limit);
        // Half of 3,000,000,001 tokens a day is not a whole number of tokens a day: the same tokens over 2 days.
        assertThat(FallbackLimits.scale(Policy.tokenBucket(1, 3_000_000_001L, Duration.ofDays(1)), 0.5))
                .isEqualTo(Policy.tokenBucket(1, 3_000_000_001L, Duration.ofDays(2)));
    }

    @Test
    void ratesAreScaledByTokensOrByStretchingThePeriod() {
        assertThat(FallbackLimits.scale(Policy.tokenBucket(100, 10, Duration.ofSeconds(1)), 0.5))
                .isEqualTo(Policy.tokenBucket(50, 5, Duration.ofSeconds(1)));
        assertThat(FallbackLimits.scale(Policy.tokenBucket(10, 1, Duration.ofSeconds(1)), 0.25))
                .isEqualTo(Policy.tokenBucket(2, 1, Duration.ofSeconds(4)));
        assertThat(FallbackLimits.scale(Policy.gcra(1, Duration.ofSeconds(1), 4), 0.5))
                .isEqualTo(Policy.gcra(1, Duration.ofSeconds(2), 2));
        assertThat(FallbackLimits.scale(Policy.gcra(10, Duration.ofSeconds(1), 4), 0.5))
                .isEqualTo(Policy.gcra(5, Duration.ofSeconds(1), 2));
    }

    @Test
    void aRateThatScalesToAFractionOfATokenPerPeriodStaysExactNotRoundedDown() {
        // Before: 3 a second at a share of 0.5 became 1 a second (a third of the share lost).
        assertThat(FallbackLimits.scale(Policy.tokenBucket(6, 3, Duration.ofSeconds(1)), 0.5))
                .isEqualTo(Policy.tokenBucket(3, 3, Duration.ofSeconds(2)));
        assertThat(FallbackLimits.scale(Policy.tokenBucket(20, 10, Duration.ofSeconds(1)), 0.25))
                .isEqualTo(Policy.tokenBucket(5, 10, Duration.ofSeconds(4)));
        assertThat(FallbackLimits.scale(Policy.gcra(3, Duration.ofSeconds(1), 4), 0.5))
                .isEqualTo(Policy.gcra(3, Duration.ofSeconds(2), 2));
        // A share such as 1/3: the period is rounded up to whole microseconds, never faster than the share.
        assertThat(FallbackLimits.scale(Policy.tokenBucket(9, 2, Duration.ofSeconds(1)), 1.0 / 3))
                .isEqualTo(Policy.tokenBucket(3, 2, Duration.ofSeconds(3)));
    }

    @Test
    void aStretchedPeriodThatIsNoWholeMicrosecondIsRoundedUpNeverFasterThanTheShare() {
        // 1 a second at a share of 0.3 is 1 every 3,333,333.33 us: 3,333,334 us, not 3,333,333.
        assertThat(FallbackLimits.scale(Policy.tokenBucket(10, 1, Duration.ofSeconds(1)), 0.3))
                .isEqualTo(Policy.tokenBucket(3, 1, Duration.ofNanos(3_333_334_000L)));
        assertThat(FallbackLimits.scale(Policy.gcra(1, Duration.ofSeconds(1), 10), 0.3))
                .isEqualTo(Policy.gcra(1, Duration.ofNanos(3_333_334_000L), 3));
    }

    @Test
    void aScaledRateThatValidationWouldRefuseKeepsTheRateAndScalesTheCount() {
        // 8 a second at a share of 0.3 is 8 every 3.333334 s: for 9 billion tokens, beyond exact arithmetic.
        Policy slow = Policy.tokenBucket(30_000_000_000L, 8, Duration.ofSeconds(1));
        assertThat(FallbackLimits.scale(slow, 0.3)).isEqualTo(Policy.tokenBucket(9_000_000_000L, 8, Duration.ofSeconds(1)));
        Policy slowGcra = Policy.gcra(8, Duration.ofSeconds(1), 30_000_000_000L);
        assertThat(FallbackLimits.scale(slowGcra, 0.3)).isEqualTo(Policy.gcra(8, Duration.ofSeconds(1), 9_000_000_000L));
    }

    @Test
    void aShareOfOneKeepsTheLimitAndACompositeKeepsItsName() {
        Limit limit = Limit.of("scan", Policy.tokenBucket(10, 1, Duration.ofSeconds(1)), Policy.fixedWindow(100, Duration.ofHours(1)));
        assertThat(FallbackLimits.scale(limit, 1.0)).isSameAs(limit);
        assertThat(FallbackLimits.scale(limit, 0.5)).isEqualTo(Limit.of("scan",
                Policy.tokenBucket(5, 1, Duration.ofSeconds(2)), Policy.fixedWindow(50, Duration.ofHours(1))));
    }

    @Test
    void aRateThatScalesToExactlyOneKeepsItsPeriod() {
        assertThat(FallbackLimits.scale(Policy.tokenBucket(10, 2, Duration.ofSeconds(1)), 0.5))
                .isEqualTo(Policy.tokenBucket(5, 1, Duration.ofSeconds(1)));
        assertThat(FallbackLimits.scale(Policy.gcra(2, Duration.ofSeconds(1), 4), 0.5))
                .isEqualTo(Policy.gcra(1, Duration.ofSeconds(1), 2));
    }
}
