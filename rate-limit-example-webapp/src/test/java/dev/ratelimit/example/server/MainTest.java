package dev.ratelimit.example.server;

import dev.ratelimit.Clock;
import dev.ratelimit.ManualClock;
import dev.ratelimit.testing.RedisServer;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Start-up through {@code Main.launch}, the seam of {@code main}: exit codes and the one error line. */
class MainTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final Clock clock = new ManualClock(0);

    @Test
    void aBadSettingStopsStartUpWithOneLineNamingItAndExitCode2() {
        Main.Launch launch = launch(Map.of("PORT", "eighty"));

        assertThat(launch.server()).isNull();
        assertThat(launch.exitCode()).isEqualTo(2);
        assertThat(err()).isEqualTo("rate-limit-example: PORT=\"eighty\": must be a whole number from 0 to 65535 (--help lists every setting)\n");
        assertThat(out()).isEmpty();
    }

    @Test
    void aPortInUseStopsStartUpWithOneLineAndExitCode2() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            Main.Launch launch = launch(Map.of(), "--host=127.0.0.1", "--port=" + taken.getLocalPort());

            assertThat(launch.exitCode()).isEqualTo(2);
            assertThat(err()).startsWith("rate-limit-example: cannot listen on 127.0.0.1:" + taken.getLocalPort() + " (set PORT or --port, RATE_LIMIT_HOST or --host): ")
                    .containsOnlyOnce("\n").endsWith("(--help lists every setting)\n");
        }
    }

    @Test
    void helpPrintsTheUsageAndExitsWithZero() {
        Main.Launch launch = launch(Map.of("PORT", "not even read"), "--help");

        assertThat(launch.exitCode()).isZero();
        assertThat(out()).startsWith("Usage: java -jar rate-limit-example.jar [--name=value ...]\n").contains("RATE_LIMIT_CONFIG");
        assertThat(err()).isEmpty();
    }

    @Test
    void startsOnTheRequestedAddressWhenEverySettingIsGood() {
        Main.Launch launch = launch(Map.of("RATE_LIMIT_HOST", "127.0.0.1"), "--port=0");
        try {
            assertThat(launch.exitCode()).isZero();
            assertThat(launch.server().port()).isPositive();
            assertThat(launch.server().uri().toString()).isEqualTo("http://127.0.0.1:" + launch.server().port());
            assertThat(err()).isEmpty();
        } finally {
            launch.server().stop();
        }
    }

    @Test
    void aRedisThatDoesNotAnswerIsAWarningAfterTheBannerNotAFailedStart() {
        String url = "redis://127.0.0.1:" + RedisServer.freePort();
        PrintStream stdout = System.out;
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        System.setOut(new PrintStream(log, true, StandardCharsets.UTF_8)); // slf4j-simple's logFile=System.out, read at each line
        Main.Launch launch;
        try {
            launch = launch(Map.of("RATE_LIMIT_HOST", "127.0.0.1", "REDIS_URL", url), "--port=0");
        } finally {
            System.setOut(stdout);
        }
        try {
            assertThat(launch.exitCode()).isZero();
            String lines = log.toString(StandardCharsets.UTF_8);
            assertThat(lines).contains("connection check at start-up: FAILED (see the warning)")
                    .contains("WARN example - Redis store " + url + " failed its connection check: ")
                    .contains("; starting anyway: until Redis answers, each decision follows failure mode LOCAL_FALLBACK");
            assertThat(lines.indexOf("WARN example")).as("after the banner").isGreaterThan(lines.indexOf("listening on"));
            assertThat(lines).as("said once, not again by the store").doesNotContain("is failing");
        } finally {
            launch.server().stop();
        }
    }

    private Main.Launch launch(Map<String, String> env, String... args) {
        return Main.launch(args, env, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8), clock);
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8).replace(System.lineSeparator(), "\n");
    }
}
