package dev.ratelimit.bench;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The key distributions benchmarks draw from: one hot key, keys uniform over a set, or Zipf-skewed
 * over a set (a few heavy clients and a long tail, as real API traffic looks).
 */
public enum KeyShape {
    HOT_1(1, false),
    UNIFORM_100K(100_000, false),
    UNIFORM_1M(1_000_000, false),
    ZIPF_1M(1_000_000, true);

    /** Length of every pre-drawn sequence: a power of two, so the cursor wraps with a mask. */
    public static final int DRAWS = 1 << 22;
    /** What a servlet filter prepends to the API key it reads from the request. */
    public static final String PREFIX = "apikey:";

    private final int keys;
    private final boolean zipf;

    KeyShape(int keys, boolean zipf) {
        this.keys = keys;
        this.zipf = zipf;
    }

    /** How many distinct keys the shape draws from. */
    public int keys() {
        return keys;
    }

    /** The raw API keys, as a client sends them (without {@link #PREFIX}). */
    public String[] rawKeys() {
        String[] out = new String[keys];
        for (int i = 0; i < keys; i++) {
            out[i] = rawKey(i);
        }
        return out;
    }

    /** Client ids as a servlet filter builds them: {@link #PREFIX} plus the raw key. */
    public String[] keyStrings() {
        String[] out = new String[keys];
        for (int i = 0; i < keys; i++) {
            out[i] = PREFIX + rawKey(i);
        }
        return out;
    }

    /** The i-th raw key: {@code sk-pro-} and the hex digits of {@link #keyValue}, distinct for every i. */
    public static String rawKey(int i) {
        return "sk-pro-" + Integer.toHexString(keyValue(i));
    }

    /** The number behind the i-th key: an odd multiplier modulo 2^32, so distinct for every i. */
    static int keyValue(int i) {
        return 0x10000000 + i * 7919;
    }

    /**
     * A pre-drawn sequence of {@link #DRAWS} key indexes so the draw costs one array read in the
     * measured loop.
     */
    public int[] draws(long seed) {
        int[] out = new int[DRAWS];
        SplittableRandom random = new SplittableRandom(seed);
        if (!zipf) {
            for (int i = 0; i < DRAWS; i++) {
                out[i] = random.nextInt(keys);
            }
            return out;
        }
        // Zipf(s = 1) by inverse transform over the cumulative harmonic weights: key i has weight 1/(i+1).
        double[] cumulative = new double[keys];
        double sum = 0;
        for (int i = 0; i < keys; i++) {
            sum += 1.0 / (i + 1);
            cumulative[i] = sum;
        }
        for (int i = 0; i < DRAWS; i++) {
            double u = random.nextDouble() * sum;
            int idx = Arrays.binarySearch(cumulative, u);
            out[i] = Math.min(keys - 1, idx >= 0 ? idx : -idx - 1);
        }
        return out;
    }
}
