package dev.ratelimit.store.memory;

import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link MemoryStore#evictions()}: clients whose state was dropped at the cap while it still counted. */
class MemoryStoreEvictionsTest {
    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final MemoryStore store = MemoryStore.builder().clock(clock).maxKeysPerLimit(10).build();

    @Test
    void eachNewClientAtTheCapEvictsOneWhoseStateStillCounted() {
        RateLimiter login = store.limiter(Limit.of("login", Policy.fixedWindow(5, Duration.ofHours(1))));
        for (int i = 0; i < 10; i++) {
            login.tryAcquire("client-" + i);
        }
        assertThat(store.evictions()).isZero();

        for (int i = 10; i < 30; i++) {
            login.tryAcquire("client-" + i);
        }

        assertThat(store.evictions()).isEqualTo(20);
        assertThat(store.trackedKeys()).isEqualTo(10);
    }

    @Test
    void entriesDroppedBecauseTheirStateIsFreshAgainAreNotEvictions() {
        RateLimiter login = store.limiter(Limit.of("login", Policy.fixedWindow(5, Duration.ofHours(1))));
        for (int i = 0; i < 10; i++) {
            login.tryAcquire("client-" + i);
        }
        clock.advance(Duration.ofHours(1)); // every window is over: forgetting them changes nothing

        for (int i = 10; i < 20; i++) {
            login.tryAcquire("client-" + i);
        }
        assertThat(store.evictions()).as("ten new clients in the places of ten fresh ones").isZero();

        login.tryAcquire("client-20");
        assertThat(store.evictions()).as("the next one pushes out a client whose window still counts").isEqualTo(1);
    }

    @Test
    void countsOverEveryLimitOfTheStore() {
        RateLimiter scan = store.limiter(Limit.of("scan", Policy.fixedWindow(5, Duration.ofHours(1))));
        RateLimiter reports = store.limiter(Limit.of("reports", Policy.fixedWindow(5, Duration.ofHours(1))));
        for (int i = 0; i < 13; i++) {
            scan.tryAcquire("client-" + i);
            reports.tryAcquire("client-" + i);
        }

        assertThat(store.evictions()).isEqualTo(6);
    }
}
