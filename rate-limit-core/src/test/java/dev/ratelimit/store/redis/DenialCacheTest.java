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

    /** Three client hashes whose first candidate slot is the same (so the second is the same too). */
    private static List<String> threeWithTheSameFirstSlot() throws Exception {
        Method first = DenialCache.class.getDeclaredMethod("first", String.class);
        first.setAccessible(true);
        int slot = (int) first.invoke(null, "client-0");
        List<String> found = new ArrayList<>(List.of("client-0"));
        for (int i = 1; found.size() < 3; i++) {
            if ((int) first.invoke(null, "client-" + i) == slot) {
                found.add("client-" + i);
            }
        }
        return found;
    }

    @Test
    void aLimitThatNeverRefusedAnyoneHoldsNoTableAndAsksRedisForEveryone() {
        DenialCache cache = new DenialCache(10);
        assertThat(cache.lookup("c", 1, 0)).isNull();
        cache.forget("c");
        assertThat(cache.hasTable()).as("4096 slots per limit only once it refuses someone").isFalse();

        cache.remember("c", 1, 0, rejected(5_000_000));
        assertThat(cache.hasTable()).isTrue();
        assertThat(cache.lookup("c", 1, 1)).isNotNull();
        assertThat(cache.lookup("d", 1, 1)).isNull();
    }

    @Test
    void aCachedDenialLastsFromItsSendTimeToJustBeforeItsEndAndCountsDownBoth() {
        DenialCache cache = new DenialCache(10);
        Decision redis = new Decision(Verdict.REJECTED, Source.STORE, POLICY, 10, 0, 30_000_000, 10_000_000);
        cache.remember("c", 1, 1_000_000, redis);

        assertThat(cache.lookup("c", 1, 999_999)).as("before it was sent: a clock stepped back").isNull();
        assertThat(cache.lookup("c", 1, 1_000_000))
                .isEqualTo(new Decision(Verdict.REJECTED, Source.DENIAL_CACHE, POLICY, 10, 0, 30_000_000, 10_000_000));
        assertThat(cache.lookup("c", 1, 5_000_000))
                .isEqualTo(new Decision(Verdict.REJECTED, Source.DENIAL_CACHE, POLICY, 10, 0, 26_000_000, 6_000_000));
        assertThat(cache.lookup("c", 1, 10_999_999))
                .isEqualTo(new Decision(Verdict.REJECTED, Source.DENIAL_CACHE, POLICY, 10, 0, 20_000_001, 1));
        assertThat(cache.lookup("c", 1, 11_000_000)).as("the retry-after is over").isNull();
    }

    @Test
    void aCostEqualToTheSmallestLimitIsCachedAndALargerOneIsNot() {
        DenialCache cache = new DenialCache(10);
        cache.remember("c", 10, 0, rejected(5_000_000));
        cache.remember("d", 11, 0, rejected(5_000_000));
        assertThat(cache.lookup("c", 10, 1)).isNotNull();
        assertThat(cache.lookup("d", 11, 1)).isNull();
    }

    @Test
    void onlyTheDeniedCostIsAnsweredALargerOrSmallerOneIsAskedOfRedis() {
        DenialCache cache = new DenialCache(10);
        cache.remember("c", 3, 0, rejected(5_000_000));

        assertThat(cache.lookup("c", 3, 1)).isNotNull();
        assertThat(cache.lookup("c", 4, 1)).as("refused too, but its own wait is longer").isNull();
        assertThat(cache.lookup("c", 2, 1)).as("may pass").isNull();
    }

    @Test
    void aClientRefusedAtTwoCostsKeepsBothDenialsWhileItsSlotsAreFree() {
        DenialCache cache = new DenialCache(10);
        cache.remember("c", 1, 0, rejected(5_000_000));
        cache.remember("c", 2, 0, rejected(9_000_000));

        assertThat(cache.lookup("c", 1, 1).retryAfterMicros()).isEqualTo(4_999_999);
        assertThat(cache.lookup("c", 2, 1).retryAfterMicros()).isEqualTo(8_999_999);
        cache.remember("c", 3, 0, rejected(12_000_000));
        assertThat(cache.lookup("c", 3, 1)).as("a third cost takes the slot of the one expiring first").isNotNull();
        assertThat(cache.lookup("c", 1, 1)).isNull();
        assertThat(cache.lookup("c", 2, 1)).isNotNull();
    }

    @Test
    void forgettingAClientDropsItsDenialFromEitherSlotAndNoOneElses() throws Exception {
        List<String> clients = threeSharingASlotPair();
        DenialCache cache = new DenialCache(10);
        cache.remember(clients.get(0), 1, 0, rejected(5_000_000));
        cache.remember(clients.get(1), 1, 0, rejected(6_000_000));

        cache.forget(clients.get(1));
        assertThat(cache.lookup(clients.get(1), 1, 1)).isNull();
        assertThat(cache.lookup(clients.get(0), 1, 1)).isNotNull();
        cache.forget(clients.get(0));
        assertThat(cache.lookup(clients.get(0), 1, 1)).isNull();
        cache.forget(clients.get(2)); // nothing cached: nothing happens
    }

    @Test
    void aZeroRetryAfterIsNotRememberedAndEvictsNobody() throws Exception {
        List<String> clients = threeSharingASlotPair();
        DenialCache cache = new DenialCache(10);
        cache.remember(clients.get(0), 1, 0, rejected(10_000_000));
        cache.remember(clients.get(1), 1, 0, rejected(5_000_000));
        cache.remember(clients.get(2), 1, 1_000_000, rejected(0));

        assertThat(cache.lookup(clients.get(0), 1, 2_000_000)).isNotNull();
        assertThat(cache.lookup(clients.get(1), 1, 2_000_000)).isNotNull();
    }

    @Test
    void aNewDenialReplacesTheOneExpiringFirstEvenInItsFirstSlot() throws Exception {
        List<String> clients = threeWithTheSameFirstSlot();
        String sooner = clients.get(0);
        String later = clients.get(1);
        String newcomer = clients.get(2);
        DenialCache cache = new DenialCache(10);
        cache.remember(sooner, 1, 0, rejected(5_000_000));   // the first slot
        cache.remember(later, 1, 0, rejected(10_000_000));   // the second
        cache.remember(newcomer, 1, 1_000_000, rejected(20_000_000));

        assertThat(cache.lookup(newcomer, 1, 2_000_000)).isNotNull();
        assertThat(cache.lookup(sooner, 1, 2_000_000)).as("the denial expiring first made room").isNull();
        assertThat(cache.lookup(later, 1, 2_000_000)).as("the denial expiring last is kept").isNotNull();
    }

    @Test
    void aClientsNewDenialReplacesItsOwnNotItsNeighbours() throws Exception {
        List<String> clients = threeWithTheSameFirstSlot();
        String neighbour = clients.get(0);
        String client = clients.get(1);
        DenialCache cache = new DenialCache(10);
        cache.remember(neighbour, 1, 0, rejected(5_000_000));
        cache.remember(client, 1, 0, rejected(10_000_000));
        cache.remember(client, 1, 1_000_000, rejected(20_000_000));

        assertThat(cache.lookup(neighbour, 1, 2_000_000)).as("the neighbour's denial is kept").isNotNull();
        assertThat(cache.lookup(client, 1, 15_000_000)).as("the client's newer denial").isNotNull();
    }

    @Test
    void denialsOfManyClientsAreAllKept() {
        DenialCache cache = new DenialCache(10);
        for (int i = 0; i < 64; i++) {
            cache.remember("client-" + i, 1, 0, rejected(5_000_000));
        }
        for (int i = 0; i < 64; i++) {
            assertThat(cache.lookup("client-" + i, 1, 1)).as("client-" + i).isNotNull();
        }
    }
}
