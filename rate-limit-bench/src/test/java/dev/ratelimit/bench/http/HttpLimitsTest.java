package dev.ratelimit.bench.http;

import dev.ratelimit.TokenBucket;
import dev.ratelimit.config.RateLimitConfig;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The configurations the HTTP benchmark starts the example app with are valid and say what the script claims. */
class HttpLimitsTest {

    @Test
    void limitsGiveEveryTierAMillionScansPerHourPerKey() {
        RateLimitConfig config = RateLimitConfig.fromJson(Path.of("http/limits.json"));
        assertThat(config.tiers()).containsOnlyKeys("free", "pro", "enterprise");
        config.tiers().values().forEach(endpoints -> assertThat(endpoints.get("scan").policies())
                .containsExactly(new TokenBucket(1_000_000, 1, Duration.ofHours(1))));
        assertThat(config.allowlist().paths()).containsExactly("/health");
    }
}
