package dev.ratelimit.bench.memory;

import dev.ratelimit.Decision;
import dev.ratelimit.TokenBucket;
import io.github.bucket4j.ConsumptionProbe;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The adapters enforce the limits they are given, per key, so the benchmark compares limiters that
 * really limit: with three tokens and a refill of one per hour, each allows three requests of a key
 * and rejects the fourth (Guava, which has no capacity, allows one).
 */
class ContendersTest {
    private static final Duration HOUR = Duration.ofHours(1);

    private static List<Boolean> fiveRequests(Contender contender, String key) {
        List<Boolean> verdicts = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            verdicts.add(contender.allowed(contender.decide(key)));
        }
        return verdicts;
    }

    @Test
    void oursAllowsThreePerKeyThenRejects() {
        Contender ours = new OursContender(new TokenBucket(3, 1, HOUR), 100, 1);
        assertThat(fiveRequests(ours, "apikey:a")).containsExactly(true, true, true, false, false);
        assertThat(fiveRequests(ours, "apikey:b")).containsExactly(true, true, true, false, false);
    }

    @Test
    void bucket4jProbeAndBooleanAllowThreePerKeyThenReject() {
        for (boolean probe : new boolean[] {true, false}) {
            Contender bucket4j = new Bucket4jContender(100, 3, HOUR, 0, probe);
            assertThat(fiveRequests(bucket4j, "apikey:a")).containsExactly(true, true, true, false, false);
            assertThat(fiveRequests(bucket4j, "apikey:b")).containsExactly(true, true, true, false, false);
        }
    }

    @Test
    void resilience4jAllowsThreePerCyclePerKeyThenRejects() {
        Contender r4j = new Resilience4jContender(100, 3, HOUR, 0);
        assertThat(fiveRequests(r4j, "apikey:a")).containsExactly(true, true, true, false, false);
        assertThat(fiveRequests(r4j, "apikey:b")).containsExactly(true, true, true, false, false);
    }

    @Test
    void guavaAllowsTheFirstRequestPerKeyThenRejectsUntilItsRateRefills() {
        Contender guava = new GuavaContender(100, 1.0 / 3600);
        assertThat(fiveRequests(guava, "apikey:a")).containsExactly(true, false, false, false, false);
        assertThat(fiveRequests(guava, "apikey:b")).containsExactly(true, false, false, false, false);
    }

    @Test
    void prepareSpendsHalfOfABucketSoTheRestStillPasses() {
        Contender ours = new OursContender(new TokenBucket(4, 1, HOUR), 100, 2);
        Contender bucket4j = new Bucket4jContender(100, 4, HOUR, 2, true);
        Contender r4j = new Resilience4jContender(100, 4, HOUR, 2);
        for (Contender c : List.of(ours, bucket4j, r4j)) {
            c.prepare("apikey:a");
            assertThat(fiveRequests(c, "apikey:a")).as(c.getClass().getSimpleName()).containsExactly(true, true, false, false, false);
        }
    }

    @Test
    void theFloorFindsPreparedKeysOnly() {
        Contender floor = new MapFloor(10);
        floor.prepare("apikey:a");
        assertThat(floor.allowed(floor.decide("apikey:a"))).isTrue();
        assertThat(floor.allowed(floor.decide("apikey:b"))).isFalse();
    }

    @Test
    void everyBenchmarkContenderAllowsItsPreparedKeys() {
        for (ContenderKind kind : ContenderKind.values()) {
            Contender c = kind.create(8);
            for (int i = 0; i < 8; i++) {
                c.prepare("apikey:k" + i);
            }
            for (int i = 0; i < 8; i++) {
                assertThat(c.allowed(c.decide("apikey:k" + i))).as(kind + " key " + i).isTrue();
            }
        }
    }

    @Test
    void theBenchmarksBucketLikeContendersShareOneCapacityWithHalfSpentBeforeTheRun() {
        // docs/benchmarks.md: 2,000,000,000 tokens, half spent on every key before the run, so the limits are equivalent
        // and no key is ever full (forgotten) or empty (rejecting) during a run. One decision later, each has the same left.
        long left = ContenderKind.CAPACITY - ContenderKind.PRESPEND - 1;
        Contender ours = ContenderKind.OURS_TOKEN_BUCKET.create(8);
        Contender gcra = ContenderKind.OURS_GCRA.create(8);
        Contender bucket4j = ContenderKind.BUCKET4J.create(8);
        for (Contender c : List.of(ours, gcra, bucket4j)) {
            c.prepare("apikey:a");
        }
        assertThat(((Decision) ours.decide("apikey:a")).remaining()).isEqualTo(left);
        assertThat(((Decision) gcra.decide("apikey:a")).remaining()).isEqualTo(left);
        assertThat(((ConsumptionProbe) bucket4j.decide("apikey:a")).getRemainingTokens()).isEqualTo(left);
    }
}
