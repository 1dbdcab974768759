package dev.ratelimit.example.loadcheck;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A server's decisions counted from its {@code /metrics}, across a run in which it may have restarted. */
class StoreOutcomesTest {
    private static StoreOutcomes page(long allowed, long fallbackAllowed) {
        return StoreOutcomes.parse("""
                # TYPE ratelimit_decisions_total counter
                ratelimit_decisions_total{endpoint="scan",outcome="allowed",tier="free"} %d.0
                ratelimit_decisions_total{endpoint="scan",outcome="rejected",tier="free"} 5.0
                ratelimit_decisions_total{endpoint="scan",outcome="fallback_allowed",tier="free"} %d.0
                """.formatted(allowed, fallbackAllowed));
    }

    @Test
    void countsWhatTheStoreDecidedAndWhatWasDecidedWithoutIt() {
        assertThat(page(10, 2)).isEqualTo(new StoreOutcomes(15, 2));
    }

    @Test
    void theDecisionsOfARunAreTheIncreaseOfEachCount() {
        StoreOutcomes during = page(40, 2).since(page(10, 2));

        assertThat(during).isEqualTo(new StoreOutcomes(30, 0));
        assertThat(page(40, 2).restartedSince(page(10, 2))).isFalse();
    }

    @Test
    void aServerWhoseCountWentDownRestartedAndCountsFromZeroAsPrometheusIncreaseDoes() {
        StoreOutcomes before = page(5_000, 0);
        StoreOutcomes after = page(30, 17);   // a fresh JVM that fell back while it warmed up

        assertThat(after.restartedSince(before)).isTrue();
        assertThat(after.since(before)).isEqualTo(new StoreOutcomes(35, 17));
    }
}
