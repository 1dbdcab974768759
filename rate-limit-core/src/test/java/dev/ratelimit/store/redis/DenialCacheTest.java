package dev.ratelimit.store.redis;

import dev.ratelimit.Decision;
import dev.ratelimit.Policy;
import dev.ratelimit.Source;
import dev.ratelimit.Verdict;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The denial cache's table: two candidate slots per client; a new denial replaces the one expiring first. */
class DenialCacheTest {
    private static final Policy POLICY = Policy.fixedWindow(10, Duration.ofMinutes(1));

    private static Decision rejected(long retryAfterMicros) {
        return new Decision(Verdict.REJECTED, Source.STORE, POLICY, 10, 0, retryAfterMicros, retryAfterMicros);
    }

    /** Three client hashes whose two candidate slots are the same pair (found with the cache's own slot function). */
    private static List<String> threeSharingASlotPair() throws Exception {
        Method first = DenialCache.class.getDeclaredMethod("first", String.class);
        first.setAccessible(true);
        int pair = (int) first.invoke(null, "client-0") >> 1;
        List<String> found = new ArrayList<>(List.of("client-0"));
        for (int i = 1; found.size() < 3; i++) {
            if ((int) first.invoke(null, "client-" + i) >> 1 == pair) {
                found.add("client-" + i);
            }
        }
        return found;
    }

    @Test
    void aNewDenialReplacesTheOneExpiringFirstOfItsTwoSlots() throws Exception {
        List<String> clients = threeSharingASlotPair();
        String later = clients.get(0);
        String sooner = clients.get(1);
        String newcomer = clients.get(2);
        DenialCache cache = new DenialCache(10);
        cache.remember(later, 1, 0, rejected(10_000_000));
        cache.remember(sooner, 1, 0, rejected(5_000_000));
        cache.remember(newcomer, 1, 1_000_000, rejected(20_000_000));

        assertThat(cache.lookup(newcomer, 1, 2_000_000)).isNotNull();
        assertThat(cache.lookup(sooner, 1, 2_000_000)).as("the denial expiring first made room").isNull();
        assertThat(cache.lookup(later, 1, 2_000_000)).as("the denial expiring last is kept").isNotNull();
    }
}
