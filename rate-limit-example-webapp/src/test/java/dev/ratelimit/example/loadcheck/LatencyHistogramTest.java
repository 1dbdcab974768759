package dev.ratelimit.example.loadcheck;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Percentiles from log-linear buckets: exact below 16 µs, within 1/16 above. */
class LatencyHistogramTest {

    @Test
    void givesTheMedianAndThe99thPercentileWithinABucket() {
        LatencyHistogram h = new LatencyHistogram();
        for (int i = 1; i <= 1000; i++) {
            h.record(i * 100L);
        }

        assertThat(h.count()).isEqualTo(1000);
        assertThat(h.percentile(0.50)).isBetween(50_000L * 15 / 16, 50_000L);
        assertThat(h.percentile(0.99)).isBetween(99_000L * 15 / 16, 99_000L);
    }

    @Test
    void isExactForSmallValuesAndEmptyIsZero() {
        LatencyHistogram h = new LatencyHistogram();
        assertThat(h.percentile(0.5)).isZero();
        h.record(3);
        h.record(7);
        h.record(7);

        assertThat(h.percentile(0.5)).isEqualTo(7);
        assertThat(h.percentile(0.01)).isEqualTo(3);
    }

    @Test
    void mergesHistogramsOfSeveralClients() {
        LatencyHistogram a = new LatencyHistogram();
        LatencyHistogram b = new LatencyHistogram();
        a.record(10);
        b.record(1_000_000);
        b.record(1_000_000);

        a.addAll(b);

        assertThat(a.count()).isEqualTo(3);
        assertThat(a.percentile(0.99)).isBetween(1_000_000L * 15 / 16, 1_000_000L);
    }

    @Test
    void everyBucketsLowerBoundFallsInThatBucket() {
        for (long v : new long[] {0, 1, 15, 16, 17, 31, 32, 1000, 123_456_789, Long.MAX_VALUE / 2}) {
            int index = LatencyHistogram.index(v);
            assertThat(LatencyHistogram.index(LatencyHistogram.lowerBound(index))).isEqualTo(index);
            assertThat(LatencyHistogram.lowerBound(index)).isLessThanOrEqualTo(v).isGreaterThan(v - v / 16 - 1);
        }
    }
}
