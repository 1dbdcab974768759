package dev.ratelimit.servlet;

import dev.ratelimit.ManualClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Instant;
import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The bundled configuration, end to end: for every tier and endpoint, request N+1 is the first 429. */
class BundledTierLimitsTest {
    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00.250Z"));
    private TestServer server;

    @AfterEach
    void stop() {
        server.close();
    }

    @ParameterizedTest(name = "{0} {1} {2}: {3} pass, then 429")
    @CsvSource({
            "'',           GET,  /api/scan,    10",
            "'',           GET,  /api/reports, 100",
            "'',           POST, /api/login,   5",
            "sk-free-a1,   GET,  /api/scan,    10",
            "sk-free-a1,   GET,  /api/reports, 100",
            "sk-free-a1,   POST, /api/login,   5",
            "sk-pro-b2,    GET,  /api/scan,    100",
            "sk-pro-b2,    GET,  /api/reports, 1000",
            "sk-pro-b2,    POST, /api/login,   50",
            "sk-ent-c3,    GET,  /api/scan,    500",
            "sk-ent-c3,    GET,  /api/reports, 10000",
            "sk-ent-c3,    POST, /api/login,   200",
            "sk-unknown-d, GET,  /api/scan,    10",
    })
    void admitsExactlyTheTierLimitThenRejects(String apiKey, String method, String path, int limit) {
        server = TestServer.start(RateLimitFilter.builder().clock(clock).build());
        String[] headers = apiKey.isEmpty() ? new String[0] : new String[] {"X-API-Key", apiKey};

        // The clock stands still, so no refill: the order of parallel requests cannot matter.
        List<Integer> statuses = server.statuses(limit, 8, method, path, headers);

        assertThat(Collections.frequency(statuses, 200)).isEqualTo(limit);
        assertThat(server.send(method, path, headers).statusCode()).isEqualTo(429);
        // Other clients and other endpoints are untouched.
        assertThat(server.send(method, path, "X-API-Key", apiKey + "-other").statusCode()).isEqualTo(200);
    }
}
