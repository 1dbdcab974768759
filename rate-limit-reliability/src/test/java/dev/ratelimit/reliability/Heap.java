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
     * The least-squares slope of {@code bytes} over {@code x} (bytes per unit of x): the trend of a
     * series of samples, insensitive to one noisy sample.
     */
    static double slope(double[] x, long[] bytes) {
        int n = x.length;
        double mx = 0;
        double my = 0;
        for (int i = 0; i < n; i++) {
            mx += x[i];
            my += bytes[i];
        }
        mx /= n;
        my /= n;
        double sxy = 0;
        double sxx = 0;
        for (int i = 0; i < n; i++) {
            sxy += (x[i] - mx) * (bytes[i] - my);
            sxx += (x[i] - mx) * (x[i] - mx);
        }
        return sxx == 0 ? 0 : sxy / sxx;
    }
}
