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
    void aScaledRateThatValidationWouldRefuseKeepsTheRateAndScalesTheCount() {
        // 4 a second into 18 billion tokens takes 142 years to refill; 1 a second into 30% of them, 171.
        Policy slow = Policy.tokenBucket(18_000_000_000L, 4, Duration.ofSeconds(1));
        assertThat(FallbackLimits.scale(slow, 0.3)).isEqualTo(Policy.tokenBucket(5_400_000_000L, 4, Duration.ofSeconds(1)));
        Policy slowGcra = Policy.gcra(4, Duration.ofSeconds(1), 18_000_000_000L);
        assertThat(FallbackLimits.scale(slowGcra, 0.3)).isEqualTo(Policy.gcra(4, Duration.ofSeconds(1), 5_400_000_000L));
    }

    @Test
    void aShareOfOneKeepsTheLimitAndACompositeKeepsItsName() {
        Limit limit = Limit.of("scan", Policy.tokenBucket(10, 1, Duration.ofSeconds(1)), Policy.fixedWindow(100, Duration.ofHours(1)));
        assertThat(FallbackLimits.scale(limit, 1.0)).isSameAs(limit);
        assertThat(FallbackLimits.scale(limit, 0.5)).isEqualTo(Limit.of("scan",
                Policy.tokenBucket(5, 1, Duration.ofSeconds(2)), Policy.fixedWindow(50, Duration.ofHours(1))));
    }
}
