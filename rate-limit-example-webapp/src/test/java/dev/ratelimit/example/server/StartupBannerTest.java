package dev.ratelimit.example.server;

import dev.ratelimit.config.RateLimitConfig;
import org.junit.jupiter.api.Test;

import java.net.URI;

import static org.assertj.core.api.Assertions.assertThat;

/** The start-up log: URL, store, and every tier's limits as a table. */
class StartupBannerTest {

    @Test
    void showsTheUrlTheStoreAndTheBundledTiersAsATable() {
        String banner = StartupBanner.render(URI.create("http://localhost:8080"), "in memory (this instance only)",
                RateLimitConfig.defaults(), "bundled free/pro/enterprise tiers");

        assertThat(banner.replace(System.lineSeparator(), "\n")).isEqualTo("""
                rate-limit example listening on http://localhost:8080
                  store:  in memory (this instance only)
                  config: bundled free/pro/enterprise tiers
                  tier        endpoint  route             limit
                  free        scan      GET /api/scan     token bucket 10, +1/1s
                  free        reports   GET /api/reports  sliding counter 100/1h
                  free        login     POST /api/login   fixed window 5/1m
                  pro         scan      GET /api/scan     token bucket 100, +10/1s
                  pro         reports   GET /api/reports  sliding counter 1000/1h
                  pro         login     POST /api/login   fixed window 50/1m
                  enterprise  scan      GET /api/scan     token bucket 500, +100/1s
                  enterprise  reports   GET /api/reports  sliding counter 10000/1h
                  enterprise  login     POST /api/login   fixed window 200/1m
                  unmatched /api paths: unlimited; never limited: /health
                  tiers by API key prefix (X-API-Key): sk-free-* free, sk-pro-* pro, sk-ent-* enterprise; other keys and no key: free
                  try: curl -i -H 'X-API-Key: sk-free-demo' http://localhost:8080/api/scan
                  watch: http://localhost:8080/dashboard (live charts), http://localhost:8080/metrics (Prometheus)""");
    }
}
