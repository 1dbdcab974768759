package dev.ratelimit.servlet;

import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.config.EndpointRule;
import dev.ratelimit.config.RateLimitConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** An endpoint rule's {@code cost}: what each request it matches takes from the client's quota. */
class EndpointCostTest {
    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00.250Z"));
    private TestServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void eachRequestOfARuleWithCostThreeTakesThreeFromTheQuota() {
        RateLimitConfig config = RateLimitConfig.builder()
                .endpoint(new EndpointRule("POST", "/api/export", "export", 3, false))
                .endpoint(EndpointRule.of("GET", "/api/scan", "scan"))
                .limit("free", "export", Policy.fixedWindow(10, Duration.ofMinutes(1)))
                .limit("free", "scan", Policy.fixedWindow(10, Duration.ofMinutes(1)))
                .build();
        server = TestServer.start(RateLimitFilter.builder().config(config).clock(clock).build());

        HttpResponse<String> first = server.send("POST", "/api/export");
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue("X-RateLimit-Remaining")).hasValue("7");
        assertThat(first.headers().firstValue("RateLimit")).hasValue("\"export\";r=7;t=60");
        // 7 left: two more of cost 3 pass (1 left), the fourth would need 3.
        assertThat(server.statuses(3, 1, "POST", "/api/export")).containsExactly(200, 200, 429);
        // A rule of cost 1 on the same quota size spends one a request.
        assertThat(server.get("/api/scan").headers().firstValue("X-RateLimit-Remaining")).hasValue("9");
    }
}
