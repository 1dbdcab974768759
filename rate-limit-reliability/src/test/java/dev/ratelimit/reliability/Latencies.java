package dev.ratelimit.reliability;

import java.util.Arrays;
import java.util.Collection;

/** Percentiles of latencies in microseconds (exact: the values are sorted). */
final class Latencies {
    private final long[] sorted;

    private Latencies(long[] values) {
        this.sorted = values.clone();
        Arrays.sort(sorted);
    }

    static Latencies of(long[] micros) {
        return new Latencies(micros);
    }

    static Latencies of(Collection<Exchange> exchanges) {
        return new Latencies(exchanges.stream().mapToLong(Exchange::latencyMicros).toArray());
    }

    int count() {
        return sorted.length;
    }

    /** The value at quantile {@code q} (nearest rank); 0 when empty. */
    long percentile(double q) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    long max() {
        return sorted.length == 0 ? 0 : sorted[sorted.length - 1];
    }

    /** "p50 x ms, p99 y ms, max z ms". */
    String summary() {
        return "p50 " + Report.ms(percentile(0.50)) + ", p99 " + Report.ms(percentile(0.99)) + ", max " + Report.ms(max());
    }
}
