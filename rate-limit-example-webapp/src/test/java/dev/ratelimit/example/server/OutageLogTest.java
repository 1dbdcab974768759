package dev.ratelimit.example.server;

import dev.ratelimit.Clock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the executable jar logs (slf4j-simple to standard output, as configured in its
 * {@code simplelogger.properties}) while Redis is away: the failed connection check at start-up (which
 * starts the outage), then the store's own line when the breaker opens, never one per request or per
 * connection attempt.
 */
class OutageLogTest {
    private final ByteArrayOutputStream log = new ByteArrayOutputStream();
    private PrintStream stdout;
    private RunningExample app;

    @BeforeEach
    void captureStandardOutput() {
        stdout = System.out;
        System.setOut(new PrintStream(log, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void stop() {
        try {
            if (app != null) {
                app.close();
            }
        } finally {
            System.setOut(stdout);
        }
    }

    @Test
    void aSentinelThatIsDownIsLoggedInTwoLinesNotByJedisWithAStackTracePerAttempt() throws IOException {
        int deadPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            deadPort = s.getLocalPort();
        }
        String url = "redis-sentinel://127.0.0.1:" + deadPort + "/mymaster";
        app = RunningExample.start(Clock.system(), Map.of("REDIS_URL", url));

        // Each request while the breaker is closed, then each probe, tries to reach the Sentinel again.
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> {
            assertThat(app.get("/api/scan", "X-API-Key", "sk-free-sentinel-down").statusCode()).isEqualTo(200);
            return log().contains("circuit breaker open");
        });

        // Everything but the start-up banner (its INFO line and the indented lines under it).
        assertThat(log().lines().filter(line -> !line.contains(" INFO ") && !line.startsWith("  ")).toList()).satisfiesExactly(
                check -> assertThat(check).contains(" WARN example - Redis store " + url + " failed its connection check: "),
                open -> assertThat(open).contains(" WARN RedisStore - Redis store " + url + " has its circuit breaker open"));
    }

    private String log() {
        return log.toString(StandardCharsets.UTF_8);
    }
}
