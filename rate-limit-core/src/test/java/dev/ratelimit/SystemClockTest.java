package dev.ratelimit;

import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

class SystemClockTest {

    @Test
    void everyCallerOfClockSystemReadsTheSameClock() {
        // A filter and a store that each ask for Clock.system() must agree to the microsecond.
        assertThat(Clock.system()).isSameAs(Clock.system());
    }

    @Test
    void readsTheWallClockAndNeverGoesBack() {
        Clock clock = Clock.system();
        long wallBefore = micros(Instant.now());
        long first = clock.nowMicros();
        long second = clock.nowMicros();

        assertThat(second).isGreaterThanOrEqualTo(first);
        // Anchored once per JVM to the wall clock: close to it (NTP may have slewed it since).
        assertThat(first).isBetween(wallBefore - 60_000_000L, wallBefore + 60_000_000L);
    }

    private static long micros(Instant instant) {
        return instant.getEpochSecond() * 1_000_000L + instant.getNano() / 1_000L;
    }
}
