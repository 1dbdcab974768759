package dev.ratelimit.example.loadcheck;

import dev.ratelimit.Clock;
import dev.ratelimit.example.server.RunningExample;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The load check against every algorithm (short windows, so a run of a second or two crosses window
 * edges): a correct server passes, and two servers with separate in-memory stores, each admitting a
 * full quota, are caught whatever the endpoint answers once admitted.
 */
class LoadCheckAlgorithmsTest {
    /** Every algorithm and a composite, on paths the example app answers 200. */
    private static final String ALGORITHMS = """
            {
              "defaultTier": "free",
              "tierPrefixes": { "sk-free-": "free", "sk-pro-": "pro" },
              "endpoints": [
                { "method": "GET", "path": "/api/scan", "name": "scan" },
                { "method": "GET", "path": "/api/reports", "name": "reports" },
                { "method": "POST", "path": "/api/login", "name": "login" }
              ],
              "tiers": {
                "free": {
                  "scan": { "algorithm": "sliding_window_log", "limit": 5, "window": "500ms" },
                  "reports": { "algorithm": "gcra", "rate": 5, "period": "1s", "burst": 3 },
                  "login": [ { "algorithm": "token_bucket", "capacity": 4, "refillTokens": 3, "refillPeriod": "1s" },
                             { "algorithm": "fixed_window", "limit": 100, "window": "1m" } ]
                },
                "pro": {
                  "scan": { "algorithm": "fixed_window", "limit": 5, "window": "500ms" },
                  "reports": { "algorithm": "sliding_window_counter", "limit": 5, "window": "500ms" },
                  "login": { "algorithm": "token_bucket", "capacity": 3, "refillTokens": 4, "refillPeriod": "1s" }
                }
              }
            }
            """;

    /** One wildcard rule: the load check sends {@code /api/loadcheck}, which the app answers 404 once admitted. */
    private static final String WILDCARD = """
            {
              "defaultTier": "free",
              "tierPrefixes": { "sk-free-": "free" },
              "endpoints": [ { "method": "GET", "path": "/api/*", "name": "any" } ],
              "tiers": { "free": { "any": { "algorithm": "token_bucket", "capacity": 10, "refillTokens": 1, "refillPeriod": "1s" } } }
            }
            """;

    /** The scan rule comes after a catch-all that takes its requests: the servers hold them to "any". */
    private static final String SHADOWED = """
            {
              "defaultTier": "free",
              "tierPrefixes": { "sk-free-": "free" },
              "endpoints": [
                { "method": "GET", "path": "/api/loadcheck", "name": "scan" },
                { "method": "GET", "path": "/api/*", "name": "any" }
              ],
              "tiers": { "free": {
                "any": { "algorithm": "token_bucket", "capacity": 100, "refillTokens": 10, "refillPeriod": "1s" },
                "scan": { "algorithm": "token_bucket", "capacity": 10, "refillTokens": 1, "refillPeriod": "1s" } } }
            }
            """;

    /** The servers never refuse the load check's request for scan (its path allowlisted) nor reports (its rule is in shadow mode). */
    private static final String NEVER_REFUSED = """
            {
              "defaultTier": "free",
              "tierPrefixes": { "sk-free-": "free" },
              "endpoints": [
                { "method": "GET", "path": "/api/scan/**", "name": "scan" },
                { "method": "GET", "path": "/api/reports", "name": "reports", "shadow": true }
              ],
              "allowlist": { "paths": ["/api/scan"] },
              "tiers": { "free": {
                "scan": { "algorithm": "token_bucket", "capacity": 10, "refillTokens": 1, "refillPeriod": "1s" },
                "reports": { "algorithm": "fixed_window", "limit": 5, "window": "1m" } } }
            }
            """;

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    @Test
    void aCorrectServerPassesForEveryAlgorithm() throws Exception {
        Path config = write("algorithms.json", ALGORITHMS);
        try (RunningExample app = RunningExample.start(Clock.system(), "--config=" + config)) {
            int exit = run("--url=" + app.uri(), "--config=" + config, "--clients=12", "--duration=2s", "--skew=50ms");

            assertThat(exit).as(out()).isZero();
        }
        assertThat(out()).contains("OK: every client stayed within its limit's bound").doesNotContain("OVER");
    }

    @Test
    void catchesTwoInMemoryInstancesOnEveryAlgorithm() throws Exception {
        Path config = write("algorithms.json", ALGORITHMS);
        try (RunningExample a = RunningExample.start(Clock.system(), "--config=" + config);
             RunningExample b = RunningExample.start(Clock.system(), "--config=" + config)) {
            // 2 s, not 1: two instances admit 2 x 5 per 500 ms window against a bound of 5 per window touched
            // plus up to two more at the skew-widened edges, so only a run touching more than 2 windows is
            // surely OVER; a 1 s run aligned with the windows touched exactly 2 (seen: fixed window 20/20, ok).
            int exit = run("--url=" + a.uri() + "," + b.uri(), "--config=" + config, "--clients=6", "--duration=2s", "--skew=50ms");

            assertThat(exit).as(out()).isEqualTo(LoadCheck.OVER_LIMIT);
        }
        for (String row : new String[] {"free +scan", "free +reports", "free +login", "pro +scan", "pro +reports", "pro +login"}) {
            assertThat(out()).containsPattern(row + " .* OVER\n");
        }
    }

    @Test
    void countsAnAdmittedRequestWhateverTheEndpointAnswers() throws Exception {
        Path config = write("wildcard.json", WILDCARD);
        try (RunningExample a = RunningExample.start(Clock.system(), "--config=" + config);
             RunningExample b = RunningExample.start(Clock.system(), "--config=" + config)) {
            int exit = run("--url=" + a.uri() + "," + b.uri(), "--config=" + config, "--clients=2", "--duration=1s");

            assertThat(exit).as(out()).isEqualTo(LoadCheck.OVER_LIMIT);
        }
        assertThat(out()).containsPattern("free +any +token bucket 10, \\+1/1s +2 .* OVER\n");
    }

    @Test
    void refusesAnEndpointWhoseRequestsAnEarlierRuleDecides() throws Exception {
        Path config = write("shadowed.json", SHADOWED);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit;
        try (RunningExample app = RunningExample.start(Clock.system(), "--config=" + config)) {
            exit = LoadCheck.run(new String[] {"--url=" + app.uri(), "--config=" + config, "--endpoints=any", "--duration=500ms"},
                    Clock.system(), new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        }

        assertThat(exit).as(out()).isEqualTo(LoadCheck.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--endpoints: the load check's request for \"any\" (GET /api/loadcheck) "
                + "is decided by the earlier rule \"scan\" (GET /api/loadcheck), so its bound would not be the servers'");
    }

    @Test
    void refusesAnEndpointTheServersNeverRefuseRatherThanCallACorrectServerOver() throws Exception {
        Path config = write("never-refused.json", NEVER_REFUSED);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int scan;
        int reports;
        try (RunningExample app = RunningExample.start(Clock.system(), "--config=" + config)) {
            scan = LoadCheck.run(new String[] {"--url=" + app.uri(), "--config=" + config, "--endpoints=scan", "--duration=500ms"},
                    Clock.system(), new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
            reports = LoadCheck.run(new String[] {"--url=" + app.uri(), "--config=" + config, "--endpoints=reports", "--duration=500ms"},
                    Clock.system(), new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        }

        assertThat(List.of(scan, reports)).as(out()).containsExactly(LoadCheck.USAGE, LoadCheck.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8).split(System.lineSeparator())).containsExactly(
                "load check: --endpoints: the servers never refuse the load check's request for \"scan\" (GET /api/scan): "
                        + "the allowlist path \"/api/scan\" matches it, so it has no bound to check (--help lists every flag)",
                "load check: --endpoints: the servers never refuse the load check's request for \"reports\" (GET /api/reports): "
                        + "its rule is in shadow mode, so it has no bound to check (--help lists every flag)");
        assertThat(out()).isEmpty();
    }

    @Test
    void refusesAConfigurationWithoutEndpointRulesInsteadOfSendingNothingOrDividingByZero() throws Exception {
        Path config = write("unmatched-only.json", """
                { "defaultTier": "free", "unmatched": { "algorithm": "fixed_window", "limit": 5, "window": "1m" }, "tiers": { "free": {} } }
                """);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream errors = new PrintStream(err, true, StandardCharsets.UTF_8);
        PrintStream output = new PrintStream(out, true, StandardCharsets.UTF_8);

        int byDefault = LoadCheck.run(new String[] {"--config=" + config}, Clock.system(), output, errors);
        int twoClients = LoadCheck.run(new String[] {"--config=" + config, "--clients=2"}, Clock.system(), output, errors);

        assertThat(List.of(byDefault, twoClients)).containsExactly(LoadCheck.USAGE, LoadCheck.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8).split(System.lineSeparator())).containsOnly(
                "load check: --endpoints: the configuration has no endpoint rule (it limits only unmatched requests), "
                        + "so no request has a bound to check (--help lists every flag)");
        assertThat(out()).isEmpty();
    }

    private Path write(String name, String json) throws IOException {
        return Files.writeString(dir.resolve(name), json);
    }

    private int run(String... args) throws InterruptedException {
        return LoadCheck.run(args, Clock.system(), new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8).replace(System.lineSeparator(), "\n");
    }
}
