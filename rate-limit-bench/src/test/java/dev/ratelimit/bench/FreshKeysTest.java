package dev.ratelimit.bench;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Fresh keys are new strings equal to the pre-generated ones, so both key modes ask about the same clients. */
class FreshKeysTest {

    @Test
    void freshKeysEqualThePreGeneratedOnesButAreNewStrings() {
        FreshKeys fresh = new FreshKeys();
        String[] pregenerated = KeyShape.UNIFORM_1M.keyStrings();
        for (int i : new int[] {0, 1, 2, 15, 16, 255_000, 542_356, 999_999}) {
            String key = fresh.key(i);
            assertThat(key).isEqualTo(pregenerated[i]).isNotSameAs(pregenerated[i]);
        }
        assertThat(fresh.key(0)).isEqualTo("apikey:sk-pro-10000000");
        assertThat(fresh.rawKey(1)).isEqualTo("sk-pro-10001eef");
    }

    @Test
    void everyKeyOfTheLargestShapeIsDistinct() {
        assertThat(java.util.Set.of(KeyShape.ZIPF_1M.keyStrings())).hasSize(1_000_000);
    }
}
