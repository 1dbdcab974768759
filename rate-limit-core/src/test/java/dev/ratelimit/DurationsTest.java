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

    @Test
    void theMostNegativeMicrosecondsThatFitALongConvertBack() {
        // Whole seconds times a million overflow there, though the sum with the nanoseconds fits.
        assertThat(Durations.toMicros(Durations.ofMicros(Long.MIN_VALUE))).isEqualTo(Long.MIN_VALUE);
        assertThat(Durations.toMicros(Durations.ofMicros(Long.MIN_VALUE + 1))).isEqualTo(Long.MIN_VALUE + 1);
        assertThat(Durations.toMicros(Durations.ofMicros(Long.MAX_VALUE))).isEqualTo(Long.MAX_VALUE);
        assertThatThrownBy(() -> Durations.toMicros(Durations.ofMicros(Long.MIN_VALUE).minusNanos(1_000)))
                .isInstanceOf(ArithmeticException.class);
    }

    @Test
    void aManualClockRefusesReadingsBefore1970AndStaysPut() {
        // All-zero state is a fresh client: before 1970 a fresh client would read as one with history.
        assertThatThrownBy(() -> new ManualClock(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a clock reading before 1970 is not supported (the algorithms read all-zero state as a fresh "
                        + "client's), was -1 µs");
        assertThatThrownBy(() -> new ManualClock(Instant.parse("1969-12-31T23:59:59Z")))
                .hasMessageEndingWith("was 1969-12-31T23:59:59Z");
        assertThatThrownBy(() -> new ManualClock(Instant.MIN)).isInstanceOf(IllegalArgumentException.class);
        ManualClock clock = new ManualClock(1_000_000);
        assertThatThrownBy(() -> clock.advance(Duration.ofSeconds(-2))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> clock.setMicros(-5)).isInstanceOf(IllegalArgumentException.class);
        assertThat(clock.nowMicros()).isEqualTo(1_000_000);
        assertThat(clock.advance(Duration.ofSeconds(-1)).nowMicros()).isZero();
    }
}
