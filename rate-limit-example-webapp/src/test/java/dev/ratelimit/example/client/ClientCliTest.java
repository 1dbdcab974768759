package dev.ratelimit.example.client;

import dev.ratelimit.ManualClock;
import dev.ratelimit.example.server.RunningExample;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** The ResilientClient CLI against the real example server, in fake time. */
class ClientCliTest {
    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final RunningExample app = RunningExample.start(clock);

    @AfterEach
    void stop() {
        app.close();
    }

    @Test
    void printsEveryTryWithItsWaitAndStatusThenASummary() throws InterruptedException {
        int exit = run("--url=" + app.uri(), "--api-key=sk-free-cli", "--requests=12", "--pacing=false");

        assertThat(exit).isZero();
        assertThat(out()).isEqualTo("GET " + app.uri() + "/api/scan with X-API-Key sk-free-*** (11 characters), 12 requests\n"
                + "request  try   waited  why it waited                 status  left\n"
                + "      1    1   0.000s  -                                200     9\n"
                + "      2    1   0.000s  -                                200     8\n"
                + "      3    1   0.000s  -                                200     7\n"
                + "      4    1   0.000s  -                                200     6\n"
                + "      5    1   0.000s  -                                200     5\n"
                + "      6    1   0.000s  -                                200     4\n"
                + "      7    1   0.000s  -                                200     3\n"
                + "      8    1   0.000s  -                                200     2\n"
                + "      9    1   0.000s  -                                200     1\n"
                + "     10    1   0.000s  -                                200     0\n"
                + "     11    1   0.000s  -                                429     0\n"
                + "     11    2   1.000s  Retry-After 1.000s               200     0\n"
                + "     12    1   0.000s  -                                429     0\n"
                + "     12    2   1.000s  Retry-After 1.000s               200     0\n"
                + "12 requests: 12 answered 2xx, 0 gave up on 429/503, 0 other; waited 2.000s in all\n");
        assertThat(err()).isEmpty();
    }

    @Test
    void exitsWith1WhenARequestEndsRefused() throws InterruptedException {
        int exit = run("--url=" + app.uri(), "--api-key=sk-free-cli", "--path=/api/login", "--requests=6", "--max-wait=5s");

        assertThat(exit).isEqualTo(1);
        assertThat(out()).contains("gave up: the next wait (60.000s) would exceed the total wait budget (5.000s, 0.000s used)")
                .endsWith("6 requests: 5 answered 2xx, 1 gave up on 429/503, 0 other; waited 0.000s in all\n");
    }

    @Test
    void theSummarysWaitCountsTheBackOffsOfRequestsThatFailedToConnect() throws Exception {
        int closedPort;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        Instant before = Instant.ofEpochSecond(0, clock.nowMicros() * 1_000);

        int exit = run("--url=http://127.0.0.1:" + closedPort, "--requests=2", "--max-retries=2", "--base-delay=1s", "--max-delay=1s");

        assertThat(exit).isEqualTo(1);
        java.time.Duration slept = java.time.Duration.between(before, Instant.ofEpochSecond(0, clock.nowMicros() * 1_000));
        assertThat(slept).as("two back-offs per request").isPositive();
        assertThat(out()).contains("failed: java.net.ConnectException")
                .endsWith("waited " + ResilientClient.seconds(slept.toNanos() / 1_000) + " in all\n");
    }

    @Test
    void aBadFlagIsOneLineAndExitCode2() throws InterruptedException {
        assertThat(run("--requests=many")).isEqualTo(2);
        assertThat(err()).isEqualTo("ResilientClient CLI: --requests=\"many\": must be a whole number from 1 to 1000000 (--help lists every flag)\n");
        assertThat(out()).isEmpty();
    }

    @Test
    void aMistypedFlagNeverPrintsTheKeyItCarries() throws InterruptedException {
        assertThat(run("--url=" + app.uri(), "--api-ky=sk-pro-4f9c2a7e", "sk-ent-0b1c2d3e")).isEqualTo(2);

        assertThat(err()).startsWith("ResilientClient CLI: unknown argument \"--api-ky\"; known: --url, --api-key")
                .doesNotContain("4f9c2a7e");
        assertThat(run("--url=" + app.uri(), "sk-ent-0b1c2d3e")).isEqualTo(2);
        assertThat(err()).doesNotContain("0b1c2d3e");
    }

    @Test
    void aBadUrlPathApiKeyOrDurationIsOneLineNamingTheFlagNotAStackTrace() throws InterruptedException {
        assertThat(run("--url=http://exa mple")).isEqualTo(2);
        assertThat(run("--url=" + app.uri(), "--path=/api/sc an")).isEqualTo(2);
        assertThat(run("--url=" + app.uri(), "--api-key=sk-free-a\r\nX-Admin: 1")).isEqualTo(2);
        assertThat(run("--url=" + app.uri(), "--max-wait=200000d")).isEqualTo(2);

        assertThat(err().split("\n")).containsExactly(
                "ResilientClient CLI: --url=\"http://exa mple\": must be an http:// or https:// URL with a host (--help lists every flag)",
                "ResilientClient CLI: --path=\"/api/sc an\": must be a URL path such as /api/scan (--help lists every flag)",
                "ResilientClient CLI: --api-key: must be a valid HTTP header value (the key is not shown) (--help lists every flag)",
                "ResilientClient CLI: --max-wait=\"200000d\": must be a duration of at most 1d (--help lists every flag)");
        assertThat(out()).isEmpty();
    }

    @Test
    void aUrlWithAPortOutOfRangeAQueryOrAFragmentIsOneLineAndExitCode2NotAStackTraceOrAnotherUrl() throws InterruptedException {
        assertThat(run("--url=http://127.0.0.1:99999", "--requests=1")).isEqualTo(2);
        assertThat(run("--url=" + app.uri() + "?x=1", "--requests=1")).isEqualTo(2);
        assertThat(run("--url=" + app.uri() + "#top", "--requests=1")).isEqualTo(2);

        String problem = ": must be a base URL such as http://localhost:8080: a port up to 65535, no ?query or #fragment"
                + " (--help lists every flag)";
        assertThat(err().split("\n")).containsExactly(
                "ResilientClient CLI: --url=\"http://127.0.0.1:99999\"" + problem,
                "ResilientClient CLI: --url=\"" + app.uri() + "?x=1\"" + problem,
                "ResilientClient CLI: --url=\"" + app.uri() + "#top\"" + problem);
        assertThat(out()).isEmpty();
    }

    @Test
    void aUrlWithCredentialsIsRefusedAndNoLineShowsThePassword() throws InterruptedException {
        String authority = app.uri().getRawAuthority();
        assertThat(run("--url=http://admin:s3cret@" + authority, "--requests=1")).isEqualTo(2);
        assertThat(run("--url=http://admin:s3cret@127.0.0.1:99999", "--requests=1")).isEqualTo(2);
        assertThat(run("--url=http://admin:s3 cret@" + authority, "--requests=1")).isEqualTo(2);

        assertThat(err().split("\n")).containsExactly(
                "ResilientClient CLI: --url=\"http://***@" + authority + "\": must not hold user:password@ (the client sends"
                        + " no credentials from the URL; an API key goes in --api-key) (--help lists every flag)",
                "ResilientClient CLI: --url=\"http://***@127.0.0.1:99999\": must be a base URL such as http://localhost:8080:"
                        + " a port up to 65535, no ?query or #fragment (--help lists every flag)",
                "ResilientClient CLI: --url=\"http://***@" + authority + "\": must be an http:// or https:// URL with a host"
                        + " (--help lists every flag)");
        assertThat(out()).isEmpty();
    }

    @Test
    void aMaxDelayBelowTheBaseDelayIsOneLineNamingTheFlagsTheUserTypes() throws InterruptedException {
        assertThat(run("--url=" + app.uri(), "--max-delay=100ms")).isEqualTo(2);

        assertThat(err()).isEqualTo("ResilientClient CLI: --max-delay=\"100ms\": must be at least --base-delay (250ms) (--help lists every flag)\n");
        assertThat(out()).isEmpty();
    }

    @Test
    void aMethodTheHttpClientCannotSendIsOneLineAndExitCode2() throws InterruptedException {
        assertThat(run("--url=" + app.uri(), "--method=CONNECT", "--requests=1")).isEqualTo(2);

        assertThat(err()).isEqualTo("ResilientClient CLI: --method=\"CONNECT\": must be an HTTP method such as GET or POST (--help lists every flag)\n");
        assertThat(out()).isEmpty();
    }

    @Test
    void printsTheUrlItRequestsWhenTheBaseUrlHasAPath() throws InterruptedException {
        run("--url=" + app.uri() + "/base", "--requests=1");

        assertThat(out()).startsWith("GET " + app.uri() + "/base/api/scan, 1 requests\n")
                .contains("      1    1   0.000s  -                                404     -\n");
    }

    private int run(String... args) throws InterruptedException {
        return ClientCli.run(args, clock, clock::advance, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8).replace(System.lineSeparator(), "\n");
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8).replace(System.lineSeparator(), "\n");
    }

    @Test
    void showsAKeysTierPrefixAndNothingOfAKeyWithout() {
        assertThat(ClientCli.shown("sk-free-abc")).isEqualTo("sk-free-*** (11 characters)");
        assertThat(ClientCli.shown("sk-pro-0000000a")).isEqualTo("sk-pro-*** (15 characters)");
        // A UUID's groups up to its last '-' are two thirds of it.
        assertThat(ClientCli.shown("0f3c9a2b-7d4e-4c1a-9b8e-2f6d5a4c3b1e")).isEqualTo("*** (36 characters)");
        assertThat(ClientCli.shown("deadbeef-cafe-face-bead-0123456789ab")).isEqualTo("*** (36 characters)");
        assertThat(ClientCli.shown("plainkey")).isEqualTo("*** (8 characters)");
    }

    @Test
    void aKeyThatIsAllTierPrefixShowsNothingOfIt() {
        // "sk-free-" is a prefix and nothing else: showing the prefix would show the whole key.
        assertThat(ClientCli.shown("sk-free-")).isEqualTo("*** (8 characters)");
    }

    @Test
    void theSummaryCountsARequestThatEndsNeither2xxNorGivenUpAsOther() throws InterruptedException {
        int exit = run("--url=" + app.uri(), "--path=/api/no-such-endpoint", "--requests=1");

        assertThat(exit).isEqualTo(1);
        assertThat(out()).endsWith("1 requests: 0 answered 2xx, 0 gave up on 429/503, 1 other; waited 0.000s in all\n");
    }

    @Test
    void theSummaryCountsARequestThatFailedToConnectAsOther() throws InterruptedException, java.io.IOException {
        int closedPort;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }

        run("--url=http://127.0.0.1:" + closedPort, "--requests=1", "--max-retries=0");

        assertThat(out()).contains("1 requests: 0 answered 2xx, 0 gave up on 429/503, 1 other;");
    }

    @Test
    void acceptsTheHighestPort65535() throws InterruptedException {
        int exit = run("--url=http://127.0.0.1:65535", "--requests=1", "--max-retries=0");

        assertThat(err()).isEmpty();
        assertThat(exit).isEqualTo(1);
        assertThat(out()).startsWith("GET http://127.0.0.1:65535/api/scan, 1 requests\n");
    }

    @Test
    void sendsTheBodyWithAPostOrAPutOnly() throws Exception {
        java.util.List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        com.sun.net.httpserver.HttpServer stub = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
        stub.createContext("/", x -> {
            seen.add(x.getRequestMethod() + " " + new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            x.sendResponseHeaders(200, -1);
            x.close();
        });
        stub.start();
        try {
            String url = "--url=http://127.0.0.1:" + stub.getAddress().getPort();
            for (String method : new String[] {"POST", "PUT", "DELETE"}) {
                assertThat(run(url, "--method=" + method, "--requests=1")).isZero();
            }
        } finally {
            stub.stop(0);
        }

        assertThat(seen).containsExactly("POST {\"user\":\"demo\"}", "PUT {\"user\":\"demo\"}", "DELETE ");
    }

    @Test
    void helpPrintsTheUsageAndExits0() throws InterruptedException {
        assertThat(run("--help")).isZero();
        assertThat(out()).startsWith("Usage: java -cp rate-limit-example.jar dev.ratelimit.example.client.ClientCli")
                .contains("--pace-below=0.1");
    }
}
