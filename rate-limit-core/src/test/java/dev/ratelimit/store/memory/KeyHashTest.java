package dev.ratelimit.store.memory;

import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import org.junit.jupiter.api.Test;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The in-memory store keeps only a seeded hash of each key, so two keys with equal hashes share one
 * quota. Keys an attacker builds without knowing the store's secret must not collide with a chosen
 * key more often than chance allows.
 */
class KeyHashTest {

    /**
     * Flipping the top bit of one character shifts a 64-bit product by exactly 2^63 whatever the
     * other factor, so a hash that only xors characters in and multiplies by a constant carries that
     * difference through unchanged, and a second flip cancels it for every seed. Such pairs are easy
     * to write as Java strings (any character from U+8000, e.g. many CJK ideographs).
     */
    @Test
    void keysCraftedToCollideForEverySeedHashApart() {
        String victim = "user:" + "abcdefghijkl";
        char[] crafted = victim.toCharArray();
        // The hash reads four characters at a time: the top of block [4, 8), then of block [8, 12).
        crafted[7] ^= 0x8000;
        crafted[9] ^= 0x8000;
        crafted[11] ^= 0x8000;
        String attacker = new String(crafted);
        for (int i = 0; i < 200; i++) {
            KeyHash hash = new KeyHash(new Random(i));
            assertThat(hash.hash(attacker)).as("seed %d", i).isNotEqualTo(hash.hash(victim));
        }
    }

    @Test
    void aCraftedKeyDoesNotShareAnotherKeysQuota() {
        String victim = "user:\u5f20\u4e09\u674e\u56db\u738b\u4e94abcd";
        char[] crafted = victim.toCharArray();
        crafted[3] ^= 0x8000;
        crafted[5] ^= 0x8000;
        crafted[7] ^= 0x8000;
        RateLimiter limiter = MemoryStore.builder().clock(new ManualClock(0)).build()
                .limiter(Limit.of("login", Policy.fixedWindow(1, Duration.ofMinutes(1))));

        assertThat(limiter.tryAcquire(new String(crafted)).allowed()).isTrue();

        assertThat(limiter.tryAcquire(victim).allowed()).isTrue();
    }

    /**
     * The last block is padded with zero characters, so only the key's length, mixed into the
     * hash, tells "k" from "k" followed by U+0000.
     */
    @Test
    void keysThatDifferOnlyByTrailingNulCharactersHashApart() {
        for (int i = 0; i < 200; i++) {
            KeyHash hash = new KeyHash(new Random(i));
            assertThat(hash.hash("k\u0000")).as("seed %d", i).isNotEqualTo(hash.hash("k"));
            assertThat(hash.hash("\u0000")).as("seed %d", i).isNotEqualTo(hash.hash(""));
            assertThat(hash.hash("abcd\u0000")).as("seed %d", i).isNotEqualTo(hash.hash("abcd"));
        }
    }

    @Test
    void differentStoresHashTheSameKeyDifferently() {
        KeyHash one = new KeyHash(new SecureRandom());
        KeyHash other = new KeyHash(new SecureRandom());
        assertThat(one.hash("apikey:sk-pro-1234")).isNotEqualTo(other.hash("apikey:sk-pro-1234"));
    }

    @Test
    void aMillionDistinctKeysGiveAMillionDistinctHashes() {
        KeyHash hash = new KeyHash(new Random(42));
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < 1_000_000; i++) {
            seen.add(hash.hash("ip:10." + (i >>> 16) + '.' + ((i >>> 8) & 255) + '.' + (i & 255)));
        }
        assertThat(seen).hasSize(1_000_000);
    }
}
