package dev.ratelimit.example.loadcheck;

/**
 * Latencies in microseconds, counted in log-linear buckets (16 per power of two, so a percentile is
 * within about 6% of the true value) in fixed memory, however long the run. Not thread-safe: one
 * per virtual client, merged at the end.
 */
final class LatencyHistogram {
    private static final int SUB_BITS = 4;
    private static final int SUB = 1 << SUB_BITS;
    private final long[] counts = new long[SUB + (64 - SUB_BITS) * SUB];
    private long total;

    void record(long micros) {
        counts[index(Math.max(0, micros))]++;
        total++;
    }

    void addAll(LatencyHistogram other) {
        for (int i = 0; i < counts.length; i++) {
            counts[i] += other.counts[i];
        }
        total += other.total;
    }

    long count() {
        return total;
    }

    /** The latency at quantile {@code q} (e.g. 0.99), as its bucket's lower bound; 0 when empty. */
    long percentile(double q) {
        if (total == 0) {
            return 0;
        }
        long rank = Math.max(1, (long) Math.ceil(q * total));
        long seen = 0;
        for (int i = 0; i < counts.length; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return lowerBound(i);
            }
        }
        return lowerBound(counts.length - 1);
    }

    static int index(long v) {
        if (v < SUB) {
            return (int) v;
        }
        int exponent = 63 - Long.numberOfLeadingZeros(v);
        int sub = (int) (v >>> (exponent - SUB_BITS)) & (SUB - 1);
        return SUB + (exponent - SUB_BITS) * SUB + sub;
    }

    static long lowerBound(int index) {
        if (index < SUB) {
            return index;
        }
        int exponent = (index - SUB) / SUB + SUB_BITS;
        long sub = (index - SUB) % SUB;
        return (SUB + sub) << (exponent - SUB_BITS);
    }
}
