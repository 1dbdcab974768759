package dev.ratelimit.example.server;

import dev.ratelimit.ManualClock;
import org.junit.jupiter.api.Test;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The example embedded in a JVM: one app, one quota, whether a request comes over TCP or in-process. */
class EmbeddedExampleTest {
    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));

    @Test
    void servesOverTcpAndInProcessFromOneStore() throws Exception {
        try (EmbeddedExample app = EmbeddedExample.start(Map.of(), clock)) {
            HttpResponse<String> overTcp = HttpClient.newHttpClient().send(HttpRequest.newBuilder(app.uri().resolve("/api/scan"))
                    .header("X-API-Key", "sk-free-embedded").build(), HttpResponse.BodyHandlers.ofString());
            String inProcess = app.respond("GET /api/scan HTTP/1.1\r\nHost: x\r\nX-API-Key: sk-free-embedded\r\n"
                    + "Connection: close\r\n\r\n");

            assertThat(overTcp.statusCode()).isEqualTo(200);
            assertThat(overTcp.headers().firstValue("X-RateLimit-Remaining")).hasValue("9");
            assertThat(inProcess).startsWith("HTTP/1.1 200 ").contains("X-RateLimit-Remaining: 8")
                    .endsWith("{\"status\":\"scanning\"}");
            assertThat(app.uri().toString()).isEqualTo("http://127.0.0.1:" + app.port());
            assertThat(app.storeDescription()).startsWith("in memory");
        }
    }

    @Test
    void refusesABadSettingNamingIt() {
        assertThatThrownBy(() -> EmbeddedExample.start(Map.of("RATE_LIMIT_FAILURE_MODE", "SOMETIMES"), clock))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("RATE_LIMIT_FAILURE_MODE=\"SOMETIMES\": must be FAIL_OPEN, FAIL_CLOSED or LOCAL_FALLBACK");
    }
}
