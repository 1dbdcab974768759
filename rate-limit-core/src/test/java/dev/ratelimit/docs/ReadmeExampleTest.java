package dev.ratelimit.docs;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.TokenBucket;
import dev.ratelimit.store.memory.MemoryStore;
import dev.ratelimit.testing.ReadmeText;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The README's code example, compiled and run here; the test fails if the README's copy drifts. */
class ReadmeExampleTest {

    @Test
    void theReadmeExampleRunsAsDocumented() {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream original = System.out;
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
        // README:begin
        // A clock that stands still, so that the output below is exact. In production omit it and
        // .clock(clock): the store then reads Clock.system().
        ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
        MemoryStore store = MemoryStore.builder()
                .clock(clock)
                .maxKeysPerLimit(100_000)
                .build();
        // Bursts of 10, then 1 per second; and never more than 100 an hour.
        RateLimiter scan = store.limiter(Limit.of("scan",
                TokenBucket.perSecond(10, 1),
                Policy.fixedWindow(100, Duration.ofHours(1))));

        for (int i = 1; i <= 11; i++) {
            Decision d = scan.tryAcquire("apikey:sk-free-demo");
            if (d.allowed()) {
                System.out.println("request " + i + ": allowed, " + d.remaining() + " left");
            } else {
                System.out.println("request " + i + ": 429, retry in " + d.retryAfter().orElseThrow().toMillis() + " ms");
            }
        }
        // README:end
        } finally {
            System.setOut(original);
        }
        List<String> out = captured.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(out.get(0)).isEqualTo("request 1: allowed, 9 left");
        assertThat(out.get(9)).isEqualTo("request 10: allowed, 0 left");
        assertThat(out.get(10)).isEqualTo("request 11: 429, retry in 1000 ms");
    }

    @Test
    void theReadmeShowsExactlyThisCode() throws IOException {
        ReadmeText.assertShows("src/test/java/dev/ratelimit/docs/ReadmeExampleTest.java");
    }
}
