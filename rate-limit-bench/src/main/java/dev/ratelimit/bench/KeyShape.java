package dev.ratelimit.bench;

/**
 * The key distributions benchmarks draw from: one hot key, keys uniform over a set, or Zipf-skewed
 * over a set (a few heavy clients and a long tail, as real API traffic looks).
 */
public enum KeyShape {
    HOT_1(1, false),
    UNIFORM_100K(100_000, false),
    UNIFORM_1M(1_000_000, false),
    ZIPF_1M(1_000_000, true);

    final int keys;
    final boolean zipf;

    KeyShape(int keys, boolean zipf) {
        this.keys = keys;
        this.zipf = zipf;
    }

    /** Client ids as a servlet filter builds them. */
    String[] keyStrings() {
        String[] out = new String[keys];
        for (int i = 0; i < keys; i++) {
            out[i] = "apikey:sk-pro-" + Integer.toHexString(0x10000000 + i * 7919);
        }
        return out;
    }

    /**
     * A pre-drawn sequence of key indexes (power-of-two length) so the draw costs one array read in
     * the measured loop.
     */
    int[] draws(long seed) {
        int n = 1 << 22;
        int[] out = new int[n];
        java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
        if (!zipf) {
            for (int i = 0; i < n; i++) {
                out[i] = random.nextInt(keys);
            }
            return out;
        }
        // Zipf(s = 1) by inverse transform over the cumulative harmonic weights.
        double[] cumulative = new double[keys];
        double sum = 0;
        for (int i = 0; i < keys; i++) {
            sum += 1.0 / (i + 1);
            cumulative[i] = sum;
        }
        for (int i = 0; i < n; i++) {
            double u = random.nextDouble() * sum;
            int idx = java.util.Arrays.binarySearch(cumulative, u);
            out[i] = Math.min(keys - 1, idx >= 0 ? idx : -idx - 1);
        }
        return out;
    }
}
