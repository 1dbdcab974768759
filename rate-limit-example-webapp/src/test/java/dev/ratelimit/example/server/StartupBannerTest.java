package dev.ratelimit.example.server;

import dev.ratelimit.Policy;
import dev.ratelimit.config.EndpointRule;
import dev.ratelimit.config.RateLimitConfig;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The start-up log: URL, store, every tier's limits as a table, and whether they are enforced. */
class StartupBannerTest {

    @Test
    void showsTheUrlTheStoreAndTheBundledTiersAsATable() {
        String banner = StartupBanner.render(URI.create("http://localhost:8080"), "in memory (this instance only)",
                RateLimitConfig.defaults(), "bundled free/pro/enterprise tiers", List.of());

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
                  client addresses: the connection's peer (X-Forwarded-For ignored; behind a proxy, set RATE_LIMIT_TRUSTED_PROXIES)
                  try: curl -i -H 'X-API-Key: sk-free-demo' http://localhost:8080/api/scan
                  watch: http://localhost:8080/dashboard (live charts), http://localhost:8080/metrics (Prometheus)""");
    }

    private static String render(RateLimitConfig config) {
        return StartupBanner.render(URI.create("http://localhost:8080"), "in memory", config, "c.json", List.of())
                .replace(System.lineSeparator(), "\n");
    }

    @Test
    void saysWhenShadowModeLeavesLimitsUnenforced() {
        RateLimitConfig everywhere = RateLimitConfig.builder().limit("free", "scan", Policy.fixedWindow(3, Duration.ofMinutes(1)))
                .endpoint(EndpointRule.of("GET", "/api/scan", "scan")).shadow(true).build();
        assertThat(render(everywhere)).contains("""
                  config: c.json
                  shadow mode: limits are counted and shown in headers but never enforced (no 429)
                  tier  endpoint  route          limit
                  free  scan      GET /api/scan  fixed window 3/1m
                """);

        RateLimitConfig oneRule = RateLimitConfig.builder().limit("free", "scan", Policy.fixedWindow(3, Duration.ofMinutes(1)))
                .limit("free", "login", Policy.fixedWindow(5, Duration.ofMinutes(1)))
                .endpoint(new EndpointRule("GET", "/api/scan", "scan", 1, true))
                .endpoint(EndpointRule.of("POST", "/api/login", "login")).build();
        assertThat(render(oneRule)).doesNotContain("shadow mode:").contains("""
                  free  scan      GET /api/scan (shadow: not enforced)  fixed window 3/1m
                  free  login     POST /api/login                       fixed window 5/1m
                """);
    }

    @Test
    void aConfigWithoutRulesOrPrefixesReadsAsSentences() {
        RateLimitConfig bare = RateLimitConfig.builder().tier("free").unmatched(Policy.fixedWindow(3, Duration.ofMinutes(1))).build();

        assertThat(render(bare)).contains("""
                  config: c.json
                  no endpoint rules
                  unmatched /api paths: fixed window 3/1m
                  every client (any X-API-Key, or none) is in tier free
                """).doesNotContain("tier  endpoint").doesNotContain("prefix").doesNotContain("try:");
    }

    @Test
    void namesTheTrustedProxiesWhoseForwardedAddressesAreBelieved() {
        String banner = StartupBanner.render(URI.create("http://localhost:8080"), "in memory", RateLimitConfig.defaults(), "c.json",
                List.of("10.0.0.0/8", "127.0.0.1"));

        assertThat(banner).contains("  client addresses: from X-Forwarded-For when the peer is a trusted proxy (10.0.0.0/8, 127.0.0.1), else the peer"
                + System.lineSeparator());
    }

    @Test
    void theRequestToTryComesFromTheConfiguration() {
        RateLimitConfig custom = RateLimitConfig.builder().limit("gold", "orders", Policy.fixedWindow(3, Duration.ofMinutes(1)))
                .defaultTier("gold").tierPrefix("key-gold-", "gold").endpoint(EndpointRule.of("POST", "/api/orders", "orders")).build();

        assertThat(render(custom)).contains("  try: curl -i -X POST -H 'X-API-Key: key-gold-demo' http://localhost:8080/api/orders\n");

        RateLimitConfig anyMethod = RateLimitConfig.builder().limit("free", "orders", Policy.fixedWindow(3, Duration.ofMinutes(1)))
                .endpoint(EndpointRule.of("*", "/api/orders", "orders")).build();
        assertThat(render(anyMethod)).contains("  try: curl -i http://localhost:8080/api/orders\n");
    }
}
