package dev.ratelimit.docs;

import dev.ratelimit.Decision;
import dev.ratelimit.DecisionEvent;
import dev.ratelimit.Limit;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.TokenBucket;
import dev.ratelimit.micrometer.MicrometerListener;
import dev.ratelimit.store.memory.MemoryStore;
import dev.ratelimit.testing.ReadmeText;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.io.IOException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's example of the metrics with the core API alone (no filter): the caller binds each limit
 * and reports each decision, and the decision meters count them as they count the filter's.
 */
class ReadmeMetricsExampleTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void decisionsReportedByTheCallerAreCountedLikeTheFilters() {
        MemoryStore store = MemoryStore.builder().build();
        RateLimitListener metrics = MicrometerListener.of(registry, store::trackedKeys);
        // README:begin
        Limit scanLimit = Limit.of("scan", TokenBucket.perSecond(10, 1));
        RateLimiter scan = store.limiter(scanLimit);
        metrics.onLimitBound("free", "scan", scanLimit);   // once per limit: its series exist at zero from now on

        // then for each request:
        long started = System.nanoTime();
        Decision d = scan.tryAcquire("apikey:sk-free-demo");
        metrics.onDecision(new DecisionEvent("free", "scan", scanLimit, d, false, (System.nanoTime() - started) / 1_000));
        // README:end

        assertThat(decisions("allowed")).isEqualTo(1);
        assertThat(registry.find("ratelimit.decisions").tags("outcome", "rejected").counter()).as("bound at zero").isNotNull();
        assertThat(decisions("rejected")).isZero();
        assertThat(registry.get("ratelimit.decision").timer().count()).isEqualTo(1);
        assertThat(registry.get("ratelimit.remaining.percent").tags("tier", "free", "endpoint", "scan").summary().count())
                .isEqualTo(1);
        assertThat(registry.get("ratelimit.tracked.keys").gauge().value()).isEqualTo(1);
    }

    @Test
    void theReadmeShowsExactlyThisCode() throws IOException {
        ReadmeText.assertShows("src/test/java/dev/ratelimit/docs/ReadmeMetricsExampleTest.java");
    }

    private double decisions(String outcome) {
        return registry.get("ratelimit.decisions")
                .tags("tier", "free", "endpoint", "scan", "algorithm", "token_bucket", "outcome", outcome).counter().count();
    }
}
