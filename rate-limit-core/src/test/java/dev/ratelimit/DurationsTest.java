package dev.ratelimit;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DurationsTest {

    @Test
    void toMicrosRoundsSubMicrosecondsDownAsDocumented() {
        assertThat(Durations.toMicros(Duration.ofNanos(1_999))).isEqualTo(1);
        assertThat(Durations.toMicros(Duration.ofNanos(-500))).isEqualTo(-1);
        assertThat(Durations.toMicros(Duration.ofNanos(-1_500))).isEqualTo(-2);
    }

    @Test
    void aDurationBeyondALongOfMicrosecondsIsAnErrorNotAWrappedValue() {
        assertThatThrownBy(() -> Durations.toMicros(Duration.ofSeconds(Long.MAX_VALUE)))
                .isInstanceOf(ArithmeticException.class);
        ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
        assertThatThrownBy(() -> clock.advance(Duration.ofDays(365L * 300_000)))
                .isInstanceOf(ArithmeticException.class);
        assertThat(clock.nowMicros()).isEqualTo(1_767_225_600_000_000L);
        assertThatThrownBy(() -> new ManualClock(Instant.MAX)).isInstanceOf(ArithmeticException.class);
    }
}
