package dev.ratelimit;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The manual clock moves only when told, to any time from 1970 on, and says where it stands. */
class ManualClockTest {

    @Test
    void setMicrosMovesTheClockThereForwardOrBack() {
        ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
        clock.setMicros(5_000_000);
        assertThat(clock.nowMicros()).isEqualTo(5_000_000);
        clock.advance(Duration.ofSeconds(1));
        clock.setMicros(0);
        assertThat(clock.nowMicros()).isZero();
        assertThatThrownBy(() -> clock.setMicros(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(clock.nowMicros()).as("a refused setting leaves it put").isZero();
    }

    @Test
    void showsItsReadingInMicroseconds() {
        assertThat(new ManualClock(1_500_000)).hasToString("ManualClock[1500000µs]");
    }
}
