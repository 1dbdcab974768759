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
 * {@code simplelogger.properties}) while Redis is away: the store's own lines, one per outage
 * and one when the breaker opens, never one per request or per connection attempt.
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
    void aSentinelThatIsDownIsLoggedByTheStoreInTwoLinesNotByJedisWithAStackTracePerAttempt() throws IOException {
        int deadPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            deadPort = s.getLocalPort();
        }
        app = RunningExample.start(Clock.system(), Map.of("REDIS_URL", "redis-sentinel://127.0.0.1:" + deadPort + "/mymaster"));
        log.reset(); // the start-up banner

        // Each request while the breaker is closed, then each probe, tries to reach the Sentinel again.
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> {
            assertThat(app.get("/api/scan", "X-API-Key", "sk-free-sentinel-down").statusCode()).isEqualTo(200);
            return log().contains("circuit breaker open");
        });

        assertThat(log().lines().toList()).hasSize(2).allSatisfy(line -> assertThat(line).contains(" WARN RedisStore - "));
    }

    private String log() {
        return log.toString(StandardCharsets.UTF_8);
    }
}
