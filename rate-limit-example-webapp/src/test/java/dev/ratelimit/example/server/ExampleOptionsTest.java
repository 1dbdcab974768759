package dev.ratelimit.example.server;

import dev.ratelimit.FailureMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Settings from flags over the environment, and one clear line for each bad value. */
class ExampleOptionsTest {

    @Test
    void defaultsToPort8080OnEveryAddressInMemoryWithTheBundledTiers() throws OptionException {
        ExampleOptions o = ExampleOptions.parse(new String[0], Map.of());

        assertThat(o.port()).isEqualTo(8080);
        assertThat(o.host()).isEqualTo("0.0.0.0");
        assertThat(o.redisUrl()).isEmpty();
        assertThat(o.configSource()).isEqualTo("bundled free/pro/enterprise tiers");
        assertThat(o.config().tiers().keySet()).containsExactly("free", "pro", "enterprise");
        assertThat(o.failureMode()).isEmpty();
        assertThat(o.fallbackShare()).isEmpty();
        assertThat(o.redisTimeout()).isEmpty();
        assertThat(o.trustedProxies()).isEmpty();
        assertThat(o.shutdownTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(o.help()).isFalse();
    }

    @Test
    void theShellsHostVariableDoesNotMoveTheListener() throws OptionException {
        // tcsh exports HOST=<machine name>: read, it bound the app to 127.0.1.1 and localhost was refused.
        assertThat(ExampleOptions.parse(new String[0], Map.of("HOST", "buildbox")).host()).isEqualTo("0.0.0.0");
        assertThat(ExampleOptions.parse(new String[0], Map.of("RATE_LIMIT_HOST", "127.0.0.1")).host()).isEqualTo("127.0.0.1");
    }

    @Test
    void readsTheEnvironmentAndLetsFlagsOverrideIt() throws OptionException {
        Map<String, String> env = Map.of("PORT", "9000", "RATE_LIMIT_FAILURE_MODE", "fail-closed", "RATE_LIMIT_HOST", "127.0.0.1",
                "RATE_LIMIT_TRUSTED_PROXIES", "10.0.0.0/8, 192.168.0.0/16", "SHUTDOWN_TIMEOUT", "30s",
                "RATE_LIMIT_MAX_KEYS_PER_LIMIT", "500000");

        ExampleOptions fromEnv = ExampleOptions.parse(new String[0], env);
        ExampleOptions flagged = ExampleOptions.parse(new String[] {"--port=9001", "--failure-mode=FAIL_OPEN"}, env);

        assertThat(fromEnv.port()).isEqualTo(9000);
        assertThat(fromEnv.failureMode()).hasValue(FailureMode.FAIL_CLOSED);
        assertThat(fromEnv.trustedProxies()).containsExactly("10.0.0.0/8", "192.168.0.0/16");
        assertThat(fromEnv.shutdownTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(fromEnv.maxKeysPerLimit()).hasValue(500_000);
        assertThat(flagged.port()).isEqualTo(9001);
        assertThat(flagged.failureMode()).hasValue(FailureMode.FAIL_OPEN);
        assertThat(flagged.host()).isEqualTo("127.0.0.1");
    }

    @Test
    void treatsAnEmptyValueAsTheDefaultSoAFlagCanUnsetTheEnvironment() throws OptionException {
        ExampleOptions o = ExampleOptions.parse(new String[] {"--redis-url="}, Map.of("REDIS_URL", "redis://cache:6379", "PORT", " "));

        assertThat(o.redisUrl()).isEmpty();
        assertThat(o.port()).isEqualTo(8080);
    }

    @Test
    void acceptsRedisUrlsWithTheirSharingOptions() throws OptionException {
        ExampleOptions o = ExampleOptions.parse(new String[] {"--failure-mode=LOCAL_FALLBACK", "--fallback-share=0.5",
                "--redis-timeout=250ms"}, Map.of("REDIS_URL", "redis://user:secret@cache:6379/0"));
        ExampleOptions cluster = ExampleOptions.parse(new String[0], Map.of("REDIS_URL", "redis-cluster://a:7000,b:7001"));

        assertThat(o.redisUrl()).hasValue("redis://user:secret@cache:6379/0");
        assertThat(o.failureMode()).hasValue(FailureMode.LOCAL_FALLBACK);
        assertThat(o.fallbackShare()).isEqualTo(Optional.of(0.5));
        assertThat(o.redisTimeout()).hasValue(Duration.ofMillis(250));
        assertThat(cluster.redisUrl()).hasValue("redis-cluster://a:7000,b:7001");
    }

    @Test
    void takesAClientKeySecretForRedisButNeverShowsIt() throws OptionException {
        ExampleOptions o = ExampleOptions.parse(new String[0], Map.of("REDIS_URL", "redis://cache:6379",
                "RATE_LIMIT_REDIS_CLIENT_KEY_SECRET", "0123456789abcdef-fleet"));

        assertThat(o.clientKeySecret()).hasValue("0123456789abcdef-fleet");
        assertThat(o.toString()).contains("clientKeySecret=Optional[(hidden)]").doesNotContain("0123456789abcdef");
        assertThat(problem(Map.of("REDIS_URL", "redis://cache:6379"), "--redis-client-key-secret=hunter2"))
                .isEqualTo("--redis-client-key-secret=\"(hidden)\": must be at least 16 characters, was 7 characters");
        assertThat(problem(Map.of("RATE_LIMIT_REDIS_CLIENT_KEY_SECRET", "0123456789abcdef-fleet")))
                .isEqualTo("RATE_LIMIT_REDIS_CLIENT_KEY_SECRET=\"(hidden)\": applies only to a Redis store; set REDIS_URL too");
    }

    @Test
    void takesARedisPasswordFileReadingItOnceToCheckItAndTheUrlsCredentialsAgainstIt(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("redis-password"), "hunter2\n");
        ExampleOptions o = ExampleOptions.parse(new String[0], Map.of("REDIS_URL", "redis://ratelimit@cache:6379",
                "RATE_LIMIT_REDIS_PASSWORD_FILE", file.toString()));
        assertThat(o.redisPasswordFile()).hasValue(file);
        assertThat(o.toString()).doesNotContain("hunter2");

        Path missing = dir.resolve("missing");
        assertThat(problem(Map.of("REDIS_URL", "redis://ratelimit@cache:6379"), "--redis-password-file=" + missing))
                .isEqualTo("--redis-password-file=\"" + missing + "\": cannot be read (NoSuchFileException)");
        assertThat(problem(Map.of("REDIS_URL", "redis://ratelimit:other@cache:6379", "RATE_LIMIT_REDIS_PASSWORD_FILE", file.toString())))
                .startsWith("RATE_LIMIT_REDIS_PASSWORD_FILE=\"" + file + "\": is set, but the url holds a password too");
        assertThat(problem(Map.of("REDIS_URL", "redis://hunter2@cache:6379")))
                .isEqualTo("REDIS_URL=\"redis://***@cache:6379\": names a user without a password: write user:password@"
                        + " (:password@ for the default user), or set RATE_LIMIT_REDIS_PASSWORD_FILE (--redis-password-file) to read it from a file");
        assertThat(problem(Map.of("RATE_LIMIT_REDIS_PASSWORD_FILE", file.toString())))
                .endsWith(": applies only to a Redis store; set REDIS_URL too");
    }

    @Test
    void namesTheSettingItsSourceAndTheValueOfEachBadOne() {
        assertThat(problem(Map.of("PORT", "eighty"))).isEqualTo("PORT=\"eighty\": must be a whole number from 0 to 65535");
        assertThat(problem(Map.of(), "--port=70000")).isEqualTo("--port=\"70000\": must be a whole number from 0 to 65535");
        // Only the documented forms: Integer.parseInt and Double.parseDouble read these too.
        assertThat(problem(Map.of("PORT", "+80"))).isEqualTo("PORT=\"+80\": must be a whole number from 0 to 65535");
        assertThat(problem(Map.of("PORT", "٨٠"))).isEqualTo("PORT=\"٨٠\": must be a whole number from 0 to 65535");
        assertThat(problem(Map.of("REDIS_URL", "redis://cache:6379"), "--failure-mode=LOCAL_FALLBACK", "--fallback-share=0.5d"))
                .startsWith("--fallback-share=\"0.5d\": must be a number in (0, 1]");
        assertThat(problem(Map.of("REDIS_URL", "http://user:pw@cache:6379")))
                .isEqualTo("REDIS_URL=\"http://***@cache:6379\": has an unknown scheme \"http\"; use redis, rediss, "
                        + "redis-cluster, rediss-cluster or redis-sentinel");
        assertThat(problem(Map.of("REDIS_URL", "redis://user:pw@cache:99999"))).startsWith("REDIS_URL=\"redis://***@cache:99999\": ")
                .doesNotContain("pw");
        assertThat(problem(Map.of("REDIS_URL", "redis://cache"), "--redis-timeout=2m"))
                .isEqualTo("--redis-timeout=\"2m\": must be a duration from 1ms to 60s, such as 100ms or 1s");
        assertThat(problem(Map.of("RATE_LIMIT_REDIS_TIMEOUT", "1s")))
                .isEqualTo("RATE_LIMIT_REDIS_TIMEOUT=\"1s\": applies only to a Redis store; set REDIS_URL too");
        assertThat(problem(Map.of("RATE_LIMIT_FAILURE_MODE", "sometimes")))
                .isEqualTo("RATE_LIMIT_FAILURE_MODE=\"sometimes\": must be FAIL_OPEN, FAIL_CLOSED or LOCAL_FALLBACK");
        // Not upper-cased into a documented value: Unicode rules turn the dotless \u0131 into I.
        assertThat(problem(Map.of("RATE_LIMIT_FAILURE_MODE", "fa\u0131l_open")))
                .isEqualTo("RATE_LIMIT_FAILURE_MODE=\"fa\u0131l_open\": must be FAIL_OPEN, FAIL_CLOSED or LOCAL_FALLBACK");
        assertThat(problem(Map.of("RATE_LIMIT_FAILURE_MODE", "local_fallback")))
                .isEqualTo("RATE_LIMIT_FAILURE_MODE=\"local_fallback\": LOCAL_FALLBACK applies only to a Redis store; set REDIS_URL too");
        assertThat(problem(Map.of("RATE_LIMIT_REDIS_KEY_PREFIX", "shop:")))
                .isEqualTo("RATE_LIMIT_REDIS_KEY_PREFIX=\"shop:\": applies only to a Redis store; set REDIS_URL too");
        assertThat(problem(Map.of("REDIS_URL", "redis://cache:6379"), "--redis-key-prefix=shop {a}"))
                .startsWith("--redis-key-prefix=\"shop {a}\": must be 1 to 64 printable");
        assertThat(problem(Map.of("RATE_LIMIT_FALLBACK_SHARE", "0.5")))
                .isEqualTo("RATE_LIMIT_FALLBACK_SHARE=\"0.5\": applies only to a Redis store; set REDIS_URL too");
        assertThat(problem(Map.of("REDIS_URL", "redis://cache:6379", "RATE_LIMIT_FAILURE_MODE", "FAIL_OPEN"), "--fallback-share=0.5"))
                .isEqualTo("--fallback-share=\"0.5\": applies only to the failure mode LOCAL_FALLBACK, but the failure mode is FAIL_OPEN");
        assertThat(problem(Map.of("REDIS_URL", "redis://cache:6379"), "--fallback-share=1.5"))
                .isEqualTo("--fallback-share=\"1.5\": must be a number in (0, 1], e.g. 0.5 for two instances");
        assertThat(problem(Map.of("RATE_LIMIT_MAX_KEYS_PER_LIMIT", "0")))
                .isEqualTo("RATE_LIMIT_MAX_KEYS_PER_LIMIT=\"0\": must be a whole number from 1 to 2147483647");
        assertThat(problem(Map.of(), "--max-keys-per-limit=2147483648"))
                .isEqualTo("--max-keys-per-limit=\"2147483648\": must be a whole number from 1 to 2147483647");
        assertThat(problem(Map.of(), "--max-keys-per-limit=100k"))
                .isEqualTo("--max-keys-per-limit=\"100k\": must be a whole number from 1 to 2147483647");
        assertThat(problem(Map.of("REDIS_URL", "redis://cache:6379"), "--max-keys-per-limit=1000"))
                .isEqualTo("--max-keys-per-limit=\"1000\": applies only to the in-memory store; Redis keys expire by themselves "
                        + "(unset REDIS_URL)");
        assertThat(problem(Map.of("RATE_LIMIT_TRUSTED_PROXIES", "10.0.0.0/33")))
                .startsWith("RATE_LIMIT_TRUSTED_PROXIES=\"10.0.0.0/33\": ");
        assertThat(problem(Map.of("RATE_LIMIT_TRUSTED_PROXIES", ",")))
                .isEqualTo("RATE_LIMIT_TRUSTED_PROXIES=\",\": must be a comma-separated list of IP addresses or CIDR blocks");
        assertThat(problem(Map.of("RATE_LIMIT_TRUSTED_PROXIES", "10.0.0.1, , 10.0.0.2")))
                .isEqualTo("RATE_LIMIT_TRUSTED_PROXIES=\"10.0.0.1, , 10.0.0.2\": must be a comma-separated list of IP addresses or CIDR blocks");
        assertThat(problem(Map.of("RATE_LIMIT_TRUSTED_PROXIES", "10.0.0.1,")))
                .isEqualTo("RATE_LIMIT_TRUSTED_PROXIES=\"10.0.0.1,\": must be a comma-separated list of IP addresses or CIDR blocks");
        assertThat(problem(Map.of("RATE_LIMIT_FILTER", "maybe")))
                .isEqualTo("RATE_LIMIT_FILTER=\"maybe\": must be on or off");
        assertThat(problem(Map.of("SHUTDOWN_TIMEOUT", "soon")))
                .isEqualTo("SHUTDOWN_TIMEOUT=\"soon\": must be a duration such as 500ms, 10s or 1m");
        assertThat(problem(Map.of(), "--prot=8080")).startsWith("unknown argument \"--prot\"; known: --help, --port, --host, --redis-url, ");
        assertThat(problem(Map.of(), "--port")).isEqualTo("--port needs a value, e.g. --port=8081");
        assertThat(problem(Map.of("PORT", "80\r\n80"))).isEqualTo("PORT=\"80??80\": must be a whole number from 0 to 65535");
    }

    @Test
    void namesTheConfigFileAndTheJsonPathOfABadConfiguration(@TempDir Path dir) throws IOException {
        Path bad = dir.resolve("bad.json");
        Files.writeString(bad, """
                {"defaultTier": "free", "tiers": {"free": {"scan": {"algorithm": "token_bucket", "capacity": 0, "refillTokens": 1, "refillPeriod": "1s"}}}}
                """);
        Path missing = dir.resolve("missing.json");

        assertThat(problem(Map.of("RATE_LIMIT_CONFIG", bad.toString())))
                .startsWith("RATE_LIMIT_CONFIG=\"" + bad + "\": ").contains("capacity").contains("must be > 0, was 0");
        Path trailingSlash = dir.resolve("trailing-slash.json");
        Files.writeString(trailingSlash, """
                {"endpoints": [{"method": "GET", "path": "/api/scan/", "name": "scan"}],
                 "tiers": {"free": {"scan": {"algorithm": "fixed_window", "limit": 10, "window": "1m"}}}}
                """);
        assertThat(problem(Map.of("RATE_LIMIT_CONFIG", trailingSlash.toString())))
                .startsWith("RATE_LIMIT_CONFIG=\"" + trailingSlash + "\": endpoints[0].path: ");
        assertThat(problem(Map.of(), "--config=" + missing))
                .startsWith("--config=\"" + missing + "\": cannot read it (").contains("NoSuchFileException");
        // Valid JSON the filter refuses when it is built: named like the rest.
        Path longKey = dir.resolve("long-key.json");
        Files.writeString(longKey, """
                {"allowlist": {"clients": ["apikey:%s"]}, "endpoints": [{"method": "GET", "path": "/api/scan", "name": "scan"}],
                 "tiers": {"free": {"scan": {"algorithm": "fixed_window", "limit": 10, "window": "1m"}}}}
                """.formatted("k".repeat(300)));
        assertThat(problem(Map.of(), "--config=" + longKey))
                .startsWith("--config=\"" + longKey + "\": allowlist.clients[0]: can never match");
    }

    @Test
    void helpListsEverySettingWithItsVariableAndFlag() throws OptionException {
        assertThat(ExampleOptions.parse(new String[] {"--help"}, Map.of()).help()).isTrue();
        String usage = Setting.usage();
        for (Setting s : Setting.values()) {
            assertThat(usage).contains(s.flag() + "=...", s.env());
        }
        // One column each for flags, variables and descriptions, however long the longest flag.
        List<String> lines = usage.lines().filter(l -> l.startsWith("  --")).toList();
        assertThat(lines).hasSize(Setting.values().length);
        for (int i = 0; i < lines.size(); i++) {
            Setting s = Setting.values()[i];
            assertThat(lines.get(i).indexOf(" " + s.env() + " ") + 1).as("where %s starts", s.env()).isEqualTo(lines.get(0).indexOf("PORT"));
            assertThat(lines.get(i).indexOf(s.description())).as("%s's description", s.env()).isEqualTo(lines.get(0).indexOf("HTTP port"));
        }
        assertThat(List.of(Setting.values()).stream().map(Setting::flag)).containsExactly("--port", "--host", "--redis-url",
                "--config", "--failure-mode", "--fallback-share", "--redis-timeout", "--redis-key-prefix", "--redis-client-key-secret", "--redis-password-file",
                "--max-keys-per-limit", "--trusted-proxies",
                "--filter", "--shutdown-timeout");
    }

    private static String problem(Map<String, String> env, String... args) {
        Throwable t = org.assertj.core.api.Assertions.catchThrowable(() -> ExampleOptions.parse(args, env));
        assertThat(t).isInstanceOf(OptionException.class);
        assertThat(t.getMessage()).doesNotContain("\n");
        return t.getMessage();
    }

    @Test
    void neverPrintsARedisPassword() {
        assertThatThrownBy(() -> ExampleOptions.parse(new String[] {"--redis-url=https://admin:hunter2@cache"}, Map.of()))
                .hasMessage("--redis-url=\"https://***@cache\": has an unknown scheme \"https\"; use redis, rediss, "
                        + "redis-cluster, rediss-cluster or redis-sentinel");
        assertThat(problem(Map.of("REDIS_URL", "rediss://admin:hunter2@cache:0/1"))).startsWith("REDIS_URL=\"rediss://***@cache:0/1\": ")
                .doesNotContain("hunter2");
        // Without '@' and a host, the password sits where the port goes.
        assertThat(problem(Map.of("REDIS_URL", "redis://:hunter2"))).startsWith("REDIS_URL=\"redis://:***\": ")
                .doesNotContain("hunter2");
    }

    @Test
    void neverPrintsARedisPasswordThatContainsASlashOrAnAt() throws OptionException {
        // The store splits credentials at the last '@', so it accepts these passwords as written.
        assertThat(problem(Map.of("REDIS_URL", "redis://:s3cr/et@cache:99999"))).startsWith("REDIS_URL=\"redis://***@cache:99999\": ")
                .doesNotContain("s3cr").doesNotContain("et@");

        ExampleOptions o = ExampleOptions.parse(new String[] {"--redis-url=redis://admin:hun@ter2@cache:6379"}, Map.of());
        assertThat(o.toString()).doesNotContain("hun").doesNotContain("ter2");
    }

    @Test
    void neverPrintsARedisPasswordBehindASchemeTypo() {
        // Without "://" the store still takes everything before the last '@' for credentials.
        for (String url : new String[] {"redis:/:hunter2@cache:6379", "redis//admin:hunter2@cache:6379", ":hunter2@cache:6379"}) {
            assertThat(problem(Map.of("REDIS_URL", url))).startsWith("REDIS_URL=\"***@cache:6379\": ")
                    .doesNotContain("hunter2");
        }
    }

    @Test
    void neverPrintsARedisPasswordGivenAsAStrayArgument() {
        // "--redis-url= redis://..." or a URL or secret without its flag arrives as an unknown argument.
        assertThatThrownBy(() -> ExampleOptions.parse(new String[] {"redis://:hun=ter2@cache:6379"}, Map.of()))
                .hasMessageStartingWith("unknown argument of 28 characters (not shown: it is no --name=value flag, and may "
                        + "hold a password); known: --help, --port")
                .message().doesNotContain("hun").doesNotContain("ter2");
        assertThatThrownBy(() -> ExampleOptions.parse(new String[] {"--redis-client-key-secret=", "a-long-random-secret"}, Map.of()))
                .message().doesNotContain("secret\"").doesNotContain("a-long");
        assertThatThrownBy(() -> ExampleOptions.parse(new String[] {"--redis_url=redis://:hunter2@cache"}, Map.of()))
                .message().startsWith("unknown argument \"--redis_url\"; known: ").doesNotContain("hunter2");
        // A flag and its value in one argument, as a Kubernetes args list or Docker CMD may pass them.
        assertThatThrownBy(() -> ExampleOptions.parse(new String[] {"--redis-url redis://:hunter2@redis.internal:6379"}, Map.of()))
                .message().startsWith("unknown argument \"--redis-url\" followed by 37 characters (not shown: they may hold a "
                        + "password); known: ").doesNotContain("hunter2");
        assertThatThrownBy(() -> ExampleOptions.parse(new String[] {"--redis-client-key-secret my-very-secret-value-123"}, Map.of()))
                .message().doesNotContain("my-very");
        assertThatThrownBy(() -> ExampleOptions.parse(new String[] {"--redis-url:redis://:hunter2@cache"}, Map.of()))
                .message().startsWith("unknown argument \"--redis-url\" followed by").doesNotContain("hunter2");
    }

    @Test
    void refusesAShutdownTimeoutTooLongToWaitForInsteadOfFailingAtStartOrAtSigterm() {
        // 106752 days no longer fit in a long of nanoseconds: the stop log and Jetty's stop timeout overflowed.
        assertThat(problem(Map.of("SHUTDOWN_TIMEOUT", "106752d")))
                .isEqualTo("SHUTDOWN_TIMEOUT=\"106752d\": must be at most 1d");
        assertThat(problem(Map.of(), "--shutdown-timeout=999999999999d"))
                .isEqualTo("--shutdown-timeout=\"999999999999d\": must be at most 1d");
    }

    @Test
    void aTimeoutThatIsNotWholeMillisecondsIsRefusedForThatReason() throws OptionException {
        // Jedis and Jetty wait in whole milliseconds: 1500us would have been 1ms, 500us no wait at all.
        assertThat(problem(Map.of("REDIS_URL", "redis://cache:6379", "RATE_LIMIT_REDIS_TIMEOUT", "1500us")))
                .isEqualTo("RATE_LIMIT_REDIS_TIMEOUT=\"1500us\": must be whole milliseconds (Jedis waits in ms), from 1ms to 60s");
        assertThat(problem(Map.of("REDIS_URL", "redis://cache:6379", "RATE_LIMIT_REDIS_TIMEOUT", "61s")))
                .isEqualTo("RATE_LIMIT_REDIS_TIMEOUT=\"61s\": must be a duration from 1ms to 60s, such as 100ms or 1s");
        assertThat(problem(Map.of("SHUTDOWN_TIMEOUT", "500us")))
                .isEqualTo("SHUTDOWN_TIMEOUT=\"500us\": must be whole milliseconds (Jetty's stop timeout is in ms)");
        assertThat(ExampleOptions.parse(new String[0], Map.of("SHUTDOWN_TIMEOUT", "0s")).shutdownTimeout()).isZero();
    }
}
