package dev.ratelimit.store.memory;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.TokenBucket;
import dev.ratelimit.Verdict;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static dev.ratelimit.Fixtures.clock;
import static org.assertj.core.api.Assertions.assertThat;

class MemoryStoreBoundsTest {
    private final ManualClock clock = clock();

    @Test
    void aMillionDistinctKeysKeepTheTrackedCountAtTheCap() {
        MemoryStore store = MemoryStore.builder().clock(clock).maxKeysPerLimit(1_000).build();
        RateLimiter limiter = store.limiter(Limit.of("flood", TokenBucket.perSecond(10, 1)));
        for (int i = 0; i < 1_000_000; i++) {
            assertThat(limiter.tryAcquire("invented-" + i).allowed()).isTrue();
        }
        assertThat(store.trackedKeys()).isEqualTo(1_000);
    }

    @Test
    void aLimitHoldingExactlyItsCapEvictsNoClient() {
        // 64 shards with a share of 192 keys each, three quarters of a 256-slot table: keys land in
        // the shards by chance, so some shards draw more than their share and must make room.
        int cap = 12_288;
        MemoryStore store = MemoryStore.builder().clock(clock).maxKeysPerLimit(cap).build();
        RateLimiter limiter = store.limiter(Limit.of("login", Policy.fixedWindow(1, Duration.ofHours(1))));
        for (int i = 0; i < cap; i++) {
            assertThat(limiter.tryAcquire("client-" + i).allowed()).isTrue();
        }
        assertThat(store.trackedKeys()).isEqualTo(cap);
        for (int i = 0; i < cap; i++) {
            assertThat(limiter.tryAcquire("client-" + i).allowed()).as("client-%d within the hour", i).isFalse();
        }
        // One more key: now one entry has to go.
        limiter.tryAcquire("client-" + cap);
        assertThat(store.trackedKeys()).isEqualTo(cap);
    }

    @Test
    void expiredEntriesDisappearAsTheClockMoves() {
        MemoryStore store = MemoryStore.builder().clock(clock).maxKeysPerLimit(10_000).build();
        RateLimiter bucket = store.limiter(Limit.of("bucket", TokenBucket.perSecond(10, 1)));
        RateLimiter window = store.limiter(Limit.of("window", Policy.fixedWindow(5, Duration.ofMinutes(1))));
        RateLimiter log = store.limiter(Limit.of("log", Policy.slidingWindowLog(5, Duration.ofMinutes(1))));
        for (int i = 0; i < 5_000; i++) {
            bucket.tryAcquire("k" + i, 3);
            window.tryAcquire("k" + i);
            log.tryAcquire("k" + i);
        }
        assertThat(store.trackedKeys()).isEqualTo(15_000);

        clock.advance(Duration.ofSeconds(2)); // buckets still missing a token: nothing is forgettable yet
        store.cleanUp();
        assertThat(store.trackedKeys()).isEqualTo(15_000);

        clock.advance(Duration.ofSeconds(1)); // every bucket is full again
        store.cleanUp();
        assertThat(store.trackedKeys()).isEqualTo(10_000);

        clock.advance(Duration.ofMinutes(1)); // the window and the log are over
        store.cleanUp();
        assertThat(store.trackedKeys()).isZero();
    }

    @Test
    void newKeysSweepStaleOnesWithoutAnExplicitCleanUp() {
        MemoryStore store = MemoryStore.builder().clock(clock).maxKeysPerLimit(100_000).build();
        RateLimiter limiter = store.limiter(Limit.of("l", Policy.fixedWindow(1, Duration.ofSeconds(1))));
        for (int i = 0; i < 20_000; i++) {
            limiter.tryAcquire("old-" + i);
        }
        clock.advance(Duration.ofSeconds(1));
        for (int i = 0; i < 20_000; i++) {
            limiter.tryAcquire("new-" + i);
        }
        // Each insert sweeps two slots, so the stale generation is mostly gone already.
        assertThat(store.trackedKeys()).isLessThan(30_000);
    }

    @Test
    void aFloodOfNewKeysDoesNotEvictClientsThatKeepComingBack() {
        MemoryStore store = MemoryStore.builder().clock(clock).maxKeysPerLimit(1_000).build();
        RateLimiter limiter = store.limiter(Limit.of("login", Policy.fixedWindow(5, Duration.ofHours(1))));
        // 100 regular clients use up their quota (and come back a few times).
        for (int round = 0; round < 8; round++) {
            for (int c = 0; c < 100; c++) {
                limiter.tryAcquire("regular-" + c);
            }
        }
        // An attacker floods 200,000 invented keys to push them out and reset their quota.
        for (int i = 0; i < 200_000; i++) {
            limiter.tryAcquire("flood-" + i);
        }
        int stillLimited = 0;
        for (int c = 0; c < 100; c++) {
            Decision d = limiter.tryAcquire("regular-" + c);
            if (!d.allowed()) {
                stillLimited++;
            }
        }
        assertThat(stillLimited).isEqualTo(100);
        assertThat(store.trackedKeys()).isEqualTo(1_000);
    }

    /**
     * 100 regulars that spent their quota and came back once, {@code others} more returning clients
     * that came back {@code visits} times, then a flood of invented keys: how many regulars are still
     * limited (none lost their state).
     */
    private int regularsStillLimitedAfterAFlood(int others, int visits) {
        MemoryStore store = MemoryStore.builder().clock(clock).maxKeysPerLimit(1_000).build();
        RateLimiter limiter = store.limiter(Limit.of("login", Policy.fixedWindow(5, Duration.ofHours(1))));
        for (int c = 0; c < 100; c++) {
            limiter.tryAcquire("regular-" + c, 4);
            limiter.tryAcquire("regular-" + c); // came back: spent, and seen twice
        }
        for (int k = 0; k < others; k++) {
            limiter.tryAcquire("other-" + k, 5);
        }
        for (int visit = 0; visit < visits; visit++) {
            for (int k = 0; k < others; k++) {
                limiter.tryAcquire("other-" + k); // refused every time
            }
        }
        for (int i = 0; i < 100_000; i++) {
            limiter.tryAcquire("flood-" + i);
        }
        int stillLimited = 0;
        for (int c = 0; c < 100; c++) {
            if (!limiter.tryAcquire("regular-" + c).allowed()) {
                stillLimited++;
            }
        }
        return stillLimited;
    }

    @Test
    void aFloodEvictsNoRegularWhileReturningClientsHoldUnderAThirdOfTheCap() {
        // 300 returning clients of 1,000. Evicting the first least-used of the entries after the sweep
        // cursor ate the invented keys along its path and evicted 6 to 8 of these regulars.
        assertThat(regularsStillLimitedAfterAFlood(200, 1)).isEqualTo(100);
    }

    @Test
    void refusedRequestsDoNotAgeTheRegularsSoAFloodAfterThemStillCannotEvictThem() {
        // Refusals cost an attacker nothing: counted as use, 200 rounds of them on keys of its own (in
        // every shard) halved the regulars' counters to nothing, and the flood then evicted all 100.
        assertThat(regularsStillLimitedAfterAFlood(150, 200)).isEqualTo(100);
    }

    @Test
    void aFloodMayEvictAKeySeenOnlyOnceButNotOneThatCameBack() {
        MemoryStore store = MemoryStore.builder().clock(clock).maxKeysPerLimit(1_000).build();
        RateLimiter limiter = store.limiter(Limit.of("login", Policy.fixedWindow(5, Duration.ofHours(1))));
        // One request spends a whole quota: to the store this key looks like any invented one.
        assertThat(limiter.tryAcquire("once", 5).allowed()).isTrue();
        // This one comes back: its first request spends the quota, the second is refused.
        assertThat(limiter.tryAcquire("returning", 5).allowed()).isTrue();
        assertThat(limiter.tryAcquire("returning").allowed()).isFalse();
        for (int i = 0; i < 200_000; i++) {
            limiter.tryAcquire("flood-" + i);
        }
        assertThat(limiter.tryAcquire("returning").allowed()).as("a client that came back keeps its state").isFalse();
        assertThat(limiter.tryAcquire("once").allowed()).as("a key seen once was evicted: fresh quota").isTrue();
    }

    @Test
    void aRequestThatCanNeverPassIsNotRemembered() {
        MemoryStore store = MemoryStore.builder().clock(clock).build();
        RateLimiter limiter = store.limiter(Limit.of("l", Policy.fixedWindow(1, Duration.ofSeconds(1))));
        limiter.tryAcquire("k", 2);
        assertThat(store.trackedKeys()).isZero();
    }

    @Test
    void aRequestThatCanNeverPassEvictsNoClientAtTheCap() {
        MemoryStore store = MemoryStore.builder().clock(clock).maxKeysPerLimit(1).build();
        RateLimiter limiter = store.limiter(Limit.of("l", Policy.fixedWindow(1, Duration.ofHours(1))));
        assertThat(limiter.tryAcquire("a").allowed()).isTrue();

        assertThat(limiter.tryAcquire("b", 2).verdict()).isEqualTo(Verdict.COST_EXCEEDS_LIMIT);

        assertThat(limiter.tryAcquire("a").allowed()).as("a keeps its spent quota").isFalse();
        assertThat(store.trackedKeys()).isEqualTo(1);
    }

    @Test
    void equalLimitsShareStateAndChangedLimitsStartFresh() {
        MemoryStore store = MemoryStore.builder().clock(clock).build();
        store.limiter(Limit.of("login", Policy.fixedWindow(1, Duration.ofMinutes(1)))).tryAcquire("k");
        assertThat(store.limiter(Limit.of("login", Policy.fixedWindow(1, Duration.ofMinutes(1)))).tryAcquire("k").allowed()).isFalse();
        assertThat(store.limiter(Limit.of("login", Policy.fixedWindow(2, Duration.ofMinutes(1)))).tryAcquire("k").allowed()).isTrue();
    }

    @Test
    void shardsSpreadTheCapExactly() {
        assertThat(MemoryRateLimiter.shardCount(1)).isEqualTo(1);
        assertThat(MemoryRateLimiter.shardCount(100)).isEqualTo(1);
        assertThat(MemoryRateLimiter.shardCount(1_000)).isEqualTo(4);
        assertThat(MemoryRateLimiter.shardCount(8_191)).isEqualTo(32);
        assertThat(MemoryRateLimiter.shardCount(8_192)).isEqualTo(64);
        assertThat(MemoryRateLimiter.shardCount(100_000)).isEqualTo(64);
        MemoryStore store = MemoryStore.builder().clock(clock).maxKeysPerLimit(7).build();
        RateLimiter limiter = store.limiter(Limit.of("l", TokenBucket.perSecond(1, 1)));
        for (int i = 0; i < 100; i++) {
            limiter.tryAcquire("k" + i);
        }
        assertThat(store.trackedKeys()).isEqualTo(7);
    }
}
