package dev.ratelimit;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** What a decision's numbers mean: the quota's when a store decided, placeholders when a failure mode did. */
class DecisionTest {
    private static final Policy POLICY = Policy.fixedWindow(5, Duration.ofMinutes(1));

    private static Decision of(Verdict verdict, Source source) {
        return new Decision(verdict, source, POLICY, 5, 0, 0, verdict == Verdict.ALLOWED ? 0 : 1_000_000);
    }

    @Test
    void decisionsOfTheStoreItsDenialCacheAndItsFallbackHaveNumbers() {
        assertThat(of(Verdict.ALLOWED, Source.STORE).hasNumbers()).isTrue();
        assertThat(of(Verdict.REJECTED, Source.STORE).hasNumbers()).isTrue();
        assertThat(of(Verdict.COST_EXCEEDS_LIMIT, Source.STORE).hasNumbers()).isTrue();
        assertThat(of(Verdict.REJECTED, Source.DENIAL_CACHE).hasNumbers()).isTrue();
        assertThat(of(Verdict.ALLOWED, Source.LOCAL_FALLBACK).hasNumbers()).isTrue();
        assertThat(of(Verdict.REJECTED, Source.LOCAL_FALLBACK).hasNumbers()).isTrue();
    }

    @Test
    void failureModeDecisionsAndAnUnavailableStoreHaveNone() {
        assertThat(of(Verdict.ALLOWED, Source.FAIL_OPEN).hasNumbers()).isFalse();
        assertThat(of(Verdict.STORE_UNAVAILABLE, Source.FAIL_CLOSED).hasNumbers()).isFalse();
        assertThat(of(Verdict.COST_EXCEEDS_LIMIT, Source.FAIL_CLOSED).hasNumbers()).isFalse();
        assertThat(of(Verdict.STORE_UNAVAILABLE, Source.LOCAL_FALLBACK).hasNumbers()).as("the fallback failed too").isFalse();
    }
}
