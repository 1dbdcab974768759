package dev.ratelimit.example.loadcheck;

import dev.ratelimit.Clock;
import dev.ratelimit.example.server.RunningExample;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The load check in real time (a second or two) against example servers started in this JVM: it
 * passes against one instance, and catches two instances that keep separate in-memory state.
 */
class LoadCheckTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Test
    void passesAgainstOneInstanceWithARowPerTierAndEndpointAndProgress() throws Exception {
        try (RunningExample app = RunningExample.start(Clock.system())) {
            int exit = run("--url=" + app.uri(), "--clients=9", "--duration=1500ms", "--progress=500ms");

            assertThat(exit).as(out()).isZero();
        }
        List<String> lines = Arrays.asList(out().split("\n"));
        assertThat(lines.get(0)).startsWith("load check: 9 clients for 1500ms against http://127.0.0.1:");
        assertThat(lines).anyMatch(l -> l.matches(" +\\d+\\.\\ds of 1500ms: sent \\d+, allowed \\d+, 429 \\d+, other 0"));
        assertThat(lines).anyMatch(l -> l.startsWith("tier ") && l.contains("sent") && l.contains("allowed") && l.contains("429")
                && l.contains("other") && l.contains("allowed/s") && l.contains("limit/s") && l.contains("p50") && l.contains("p99"));
        for (String tier : List.of("free", "pro", "enterprise")) {
            for (String endpoint : List.of("scan", "reports", "login")) {
                assertThat(lines).as(tier + " " + endpoint).anyMatch(l -> l.matches(tier + " +" + endpoint + " .* ok"));
            }
        }
        assertThat(lines).anyMatch(l -> l.matches("free +scan +token bucket 10, \\+1/1s +1 .* 1\\.00 .*"));
        assertThat(lines).contains("  token bucket: capacity + rate*T", "OK: every client stayed within its limit's bound");
        assertThat(err()).isEmpty();
    }

    @Test
    void failsWhenTwoInstancesKeepSeparateInMemoryLimits() throws Exception {
        try (RunningExample a = RunningExample.start(Clock.system()); RunningExample b = RunningExample.start(Clock.system())) {
            int exit = run("--url=" + a.uri() + "," + b.uri(), "--tiers=free", "--endpoints=scan", "--clients=2", "--duration=1s");

            assertThat(exit).as(out()).isEqualTo(LoadCheck.OVER_LIMIT);
        }
        assertThat(out()).containsPattern("free +scan +token bucket 10, \\+1/1s +2 .* OVER\n")
                .contains("FAILED: some clients were admitted more than their limit allows (rows marked OVER): "
                        + "do the instances share one store (REDIS_URL)?");
    }

    @Test
    void saysSoWhenNothingAnswers() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }

        // --progress=0, as the README and --help write "none" (a bare 0 needs no unit).
        int exit = run("--url=http://127.0.0.1:" + port, "--clients=1", "--duration=200ms", "--progress=0");

        assertThat(exit).isEqualTo(LoadCheck.NO_ANSWERS);
        assertThat(out()).contains("FAILED: no request got a 2xx or a 429; is the server at [http://127.0.0.1:" + port + "] running?");
    }

    @Test
    void aBadFlagIsOneLineAndExitCode2() throws Exception {
        assertThat(run("--tiers=gold")).isEqualTo(LoadCheck.USAGE);
        assertThat(run("--url=ftp://x")).isEqualTo(LoadCheck.USAGE);
        assertThat(run("--duration=forever")).isEqualTo(LoadCheck.USAGE);

        assertThat(err()).isEqualTo("""
                load check: --tiers="gold": "gold" is not in the configuration [free, pro, enterprise] (--help lists every flag)
                load check: --url="ftp://x": "ftp://x" must be an http:// or https:// URL with a host (--help lists every flag)
                load check: --duration="forever": must be a duration of at least 100ms, such as 500ms, 10s or 1m (--help lists every flag)
                """);
    }

    @Test
    void aUrlWithCredentialsIsRefusedAndNoLineShowsThePassword() throws Exception {
        assertThat(run("--url=http://localhost:8080,http://admin:s3cret@localhost:8081")).isEqualTo(LoadCheck.USAGE);
        assertThat(run("--url=http://admin:s3 cret@localhost:8081")).isEqualTo(LoadCheck.USAGE);

        assertThat(err()).isEqualTo("""
                load check: --url="http://***@localhost:8081": "http://***@localhost:8081" must not hold user:password@ (--help lists every flag)
                load check: --url="http://***@localhost:8081": "http://***@localhost:8081" is not a URL (--help lists every flag)
                """);
        assertThat(out()).isEmpty();
    }

    private int run(String... args) throws InterruptedException {
        return LoadCheck.run(args, Clock.system(), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8).replace(System.lineSeparator(), "\n");
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8).replace(System.lineSeparator(), "\n");
    }
}
