package dev.ratelimit.reliability;

import java.lang.management.ManagementFactory;

/** The heap this JVM still uses after a full collection: what a leak would make grow. */
final class Heap {
    private Heap() {
    }

    /** Heap bytes in use right after two full collections ({@code System.gc()} is a full, stop-the-world GC on G1). */
    static long usedAfterGc() {
        System.gc();
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /**
     * The trend of a series of samples, in bytes per unit of x: the median of the slopes between every
     * two samples (Theil-Sen), so that one sample taken while something transient was alive does not
     * make a trend.
     */
    static double slope(double[] x, long[] bytes) {
        java.util.List<Double> slopes = new java.util.ArrayList<>();
        for (int i = 0; i < x.length; i++) {
            for (int j = i + 1; j < x.length; j++) {
                if (x[j] != x[i]) {
                    slopes.add((bytes[j] - bytes[i]) / (x[j] - x[i]));
                }
            }
        }
        if (slopes.isEmpty()) {
            return 0;
        }
        java.util.Collections.sort(slopes);
        int n = slopes.size();
        return n % 2 == 1 ? slopes.get(n / 2) : (slopes.get(n / 2 - 1) + slopes.get(n / 2)) / 2;
    }
}
