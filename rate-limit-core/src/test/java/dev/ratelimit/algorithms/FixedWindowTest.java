package dev.ratelimit.algorithms;

import dev.ratelimit.Decision;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Verdict;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static dev.ratelimit.Fixtures.clock;
import static dev.ratelimit.Fixtures.memoryLimiter;
import static org.assertj.core.api.Assertions.assertThat;

class FixedWindowTest {
    private final ManualClock clock = clock();
    /** The seed's free login tier: 5 per minute. */
    private final RateLimiter login = memoryLimiter(clock, Policy.fixedWindow(5, Duration.ofMinutes(1)));

    @Test
    void rejectsSixthLoginWithinTheMinute() {
        clock.advance(Duration.ofSeconds(10));
        for (int i = 0; i < 5; i++) {
            Decision d = login.tryAcquire("ip:203.0.113.7");
            assertThat(d.allowed()).isTrue();
            assertThat(d.remaining()).isEqualTo(4 - i);
            assertThat(d.resetAfterMicros()).isEqualTo(50_000_000L);
        }
        Decision sixth = login.tryAcquire("ip:203.0.113.7");
        assertThat(sixth.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(sixth.retryAfterMicros()).isEqualTo(50_000_000L);
        assertThat(sixth.resetAfterMicros()).isEqualTo(50_000_000L);
    }

    @Test
    void windowsAreAlignedToTheEpochAndResetAtTheEdge() {
        clock.advance(Duration.ofSeconds(59));
        for (int i = 0; i < 5; i++) {
            login.tryAcquire("k");
        }
        clock.advance(Duration.ofMillis(999));
        assertThat(login.tryAcquire("k").retryAfterMicros()).isEqualTo(1_000L);
        clock.advance(Duration.ofMillis(1));
        // The burst at the edge: 5 more right after the boundary (the fixed window's 2x).
        for (int i = 0; i < 5; i++) {
            assertThat(login.tryAcquire("k").allowed()).isTrue();
        }
        assertThat(login.tryAcquire("k").allowed()).isFalse();
    }

    @Test
    void weighsCostAndRefusesCostAboveTheLimit() {
        assertThat(login.tryAcquire("k", 6).verdict()).isEqualTo(Verdict.COST_EXCEEDS_LIMIT);
        assertThat(login.tryAcquire("k", 3).remaining()).isEqualTo(2);
        Decision d = login.tryAcquire("k", 3);
        assertThat(d.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(d.retryAfterMicros()).isEqualTo(60_000_000L);
        assertThat(login.tryAcquire("k", 2).remaining()).isZero();
    }

    @Test
    void aFreshWindowReportsNothingToReset() {
        login.tryAcquire("k");
        clock.advance(Duration.ofMinutes(3));
        Decision d = login.tryAcquire("k");
        assertThat(d.remaining()).isEqualTo(4);
        assertThat(d.resetAfterMicros()).isEqualTo(60_000_000L);
    }

    @Test
    void aCostAboveTheLimitOnAnUntouchedWindowHasNothingToReset() {
        Decision d = login.tryAcquire("k", 6);
        assertThat(d.verdict()).isEqualTo(Verdict.COST_EXCEEDS_LIMIT);
        assertThat(d.remaining()).isEqualTo(5);
        assertThat(d.resetAfterMicros()).as("the whole quota is there").isZero();
    }
}
