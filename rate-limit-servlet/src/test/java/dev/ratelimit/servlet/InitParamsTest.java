package dev.ratelimit.servlet;

import jakarta.servlet.ServletException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Invalid init-params fail {@code init} with a message that names the init-param and its value. */
class InitParamsTest {

    /** The message of the ServletException a filter with {@code params} fails init with. */
    static String initFailure(String... params) {
        RateLimitFilter filter = new RateLimitFilter();
        try {
            filter.init(new MapFilterConfig(params));
        } catch (ServletException e) {
            return e.getMessage();
        } finally {
            filter.destroy();
        }
        throw new AssertionError("init accepted " + String.join(" ", params));
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
            "header-style       | xyz             | init-param header-style=\"xyz\": must be x, ietf or both",
            "max-api-key-length | abc             | init-param max-api-key-length=\"abc\": must be a whole number",
            "max-api-key-length | 0               | init-param max-api-key-length=\"0\": must be 1-8192, was 0",
            "max-api-key-length | 99999999999     | init-param max-api-key-length=\"99999999999\": is too large (at most 2147483647)",
            "max-api-key-length | +256            | init-param max-api-key-length=\"+256\": must be a whole number",
            "max-api-key-length | -99999999999    | init-param max-api-key-length=\"-99999999999\": is out of range",
            "max-api-key-length | ٢٥٦             | init-param max-api-key-length=\"٢٥٦\": must be a whole number",
            "ipv6-prefix-length | 16              | init-param ipv6-prefix-length=\"16\": must be 32-128, was 16",
            "ipv6-prefix-length | /64             | init-param ipv6-prefix-length=\"/64\": must be a whole number",
            "trusted-proxies    | 10.0.0.0/33     | init-param trusted-proxies=\"10.0.0.0/33\": prefix length must be 0-32, was \"10.0.0.0/33\"",
            "trusted-proxies    | 10.0.0.0/8, localhost | init-param trusted-proxies=\"10.0.0.0/8, localhost\": must be an IP address or CIDR block",
            "trusted-proxies    | ,               | init-param trusted-proxies=\",\": must be a comma-separated list of IP addresses or CIDR blocks",
            "trusted-proxies    | '10.0.0.0/8,'   | init-param trusted-proxies=\"10.0.0.0/8,\": must be a comma-separated list of IP addresses or CIDR blocks",
            "failure-mode       | sometimes       | init-param failure-mode=\"sometimes\": must be FAIL_OPEN, FAIL_CLOSED or LOCAL_FALLBACK",
            "shadow             | yes             | init-param shadow=\"yes\": must be true or false",
            // Not upper-cased into a documented value: Unicode rules turn the dotless \u0131 into I and \u017f into S.
            "header-style       | \u0131etf          | init-param header-style=\"\u0131etf\": must be x, ietf or both",
            "failure-mode       | fa\u0131l_open     | init-param failure-mode=\"fa\u0131l_open\": must be FAIL_OPEN, FAIL_CLOSED or LOCAL_FALLBACK",
            "dispatcher-types   | reque\u017ft       | init-param dispatcher-types=\"reque\u017ft\": must be a comma-separated list",
            "dispatcher-types   | REQUEST,NOPE    | init-param dispatcher-types=\"REQUEST,NOPE\": must be a comma-separated list",
            "dispatcher-types   | ,               | init-param dispatcher-types=\",\": must be a comma-separated list",
            "dispatcher-types   | 'REQUEST,'      | init-param dispatcher-types=\"REQUEST,\": must be a comma-separated list",
            "forwarded-header   | X-Real-IP       | init-param forwarded-header=\"X-Real-IP\": must be X-Forwarded-For or Forwarded",
            "api-key-header     | X API Key       | init-param api-key-header=\"X API Key\": must be an HTTP header name, was \"X API Key\"",
            "max-keys-per-limit | 0               | init-param max-keys-per-limit=\"0\": must be >= 1, was 0",
            "redis-key-prefix   | rl:             | init-param redis-key-prefix=\"rl:\": applies only to a Redis store, but store is memory",
            "store              | memcached://h:1 | init-param store=\"memcached://h:1\": must be memory or a Redis URL",
            "config             | classpath:none.json | init-param config=\"classpath:none.json\": classpath resource not found",
            "config             | ''              | init-param config=\"\": must name a JSON file",
            "config             | classpath:      | init-param config=\"classpath:\": must name a JSON file",
            "config             | classpath:/     | init-param config=\"classpath:/\": must name a JSON file",
            "config             | /no/such/file.json  | init-param config=\"/no/such/file.json\": cannot read rate-limit configuration /no/such/file.json: no such file",
            "config             | classpath:configs/bad-capacity.json | tiers.pro.scan.capacity: must be > 0, was 0",
            "config             | classpath:configs/trailing-slash-rule.json | init-param config=\"classpath:configs/trailing-slash-rule.json\": endpoints[0].path",
            "config             | classpath:configs/unnamed-limit.json | init-param config=\"classpath:configs/unnamed-limit.json\": tiers.free.search: no endpoints[] rule is named \"search\"",
    })
    void failsInitNamingTheParamAndValue(String name, String value, String expected) {
        assertThat(initFailure(name, value)).startsWith("RateLimitFilter rateLimit: ").contains(expected);
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
            "fallback-share   | 2           | init-param fallback-share=\"2\": must be in (0, 1], was 2.0",
            "fallback-share   | half        | init-param fallback-share=\"half\": must be a number in (0, 1]",
            "fallback-share   | 0x1p-1      | init-param fallback-share=\"0x1p-1\": must be a number in (0, 1]",
            "redis-key-prefix | rl {x}      | init-param redis-key-prefix=\"rl {x}\": must be 1 to 64 printable ASCII characters",
            "redis-key-prefix | app1        | init-param redis-key-prefix=\"app1\": must be 1 to 64 printable ASCII characters without spaces or braces (braces would break Redis Cluster hash tags), ending with ':'",
            "redis-key-prefix | ''          | init-param redis-key-prefix=\"\": must not be empty; leave it out for the default rl:",
            "redis-key-prefix | '   '       | init-param redis-key-prefix=\"\": must not be empty; leave it out for the default rl:",
            "redis-timeout    | soon        | init-param redis-timeout=\"soon\": must be a duration such as 500ms or 2s",
            "redis-timeout    | 2m          | init-param redis-timeout=\"2m\": must be between 1 ms and 60 s, was PT2M",
            "redis-timeout    | 999999999999d | init-param redis-timeout=\"999999999999d\": must be between 1 ms and 60 s, was PT23999999999976H",
    })
    void failsInitNamingTheRedisParam(String name, String value, String expected) {
        assertThat(initFailure("store", "redis://127.0.0.1:1", name, value)).startsWith("RateLimitFilter rateLimit: ").contains(expected);
    }

    @Test
    void failsInitOnASettingThatWouldDoNothingAndNamesWhatItNeeds() {
        assertThat(initFailure("forwarded-header", "Forwarded"))
                .contains("init-param forwarded-header=\"Forwarded\": is read only from trusted proxies, but trusted-proxies is not set");
        assertThat(initFailure("trusted-proxies", " ", "forwarded-header", "X-Forwarded-For"))
                .contains("init-param forwarded-header=\"X-Forwarded-For\": is read only from trusted proxies");
        assertThat(initFailure("store", "redis://127.0.0.1:1", "failure-mode", "fail-open", "fallback-share", "0.5"))
                .contains("init-param fallback-share=\"0.5\": applies only to failure-mode LOCAL_FALLBACK, but failure-mode is FAIL_OPEN");
        assertThat(initFailure("store", "redis://127.0.0.1:1", "failure-mode", "FAIL_CLOSED", "fallback-share", "1"))
                .contains("init-param fallback-share=\"1\": applies only to failure-mode LOCAL_FALLBACK, but failure-mode is FAIL_CLOSED");
    }

    @Test
    void failsInitOnAShortClientKeySecretWithoutEchoingIt() {
        assertThat(initFailure("store", "redis://127.0.0.1:1", "redis-client-key-secret", "hunter2"))
                .contains("init-param redis-client-key-secret=\"(hidden)\": must be at least 16 characters, was 7 characters")
                .doesNotContain("hunter2");
        assertThat(initFailure("redis-client-key-secret", "0123456789abcdef-secret"))
                .contains("applies only to a Redis store, but store is memory").doesNotContain("0123456789abcdef");
    }

    @Test
    void aStoreUrlNamingAUserWithoutAPasswordPointsAtThePasswordFileInitParam() {
        assertThat(initFailure("store", "redis://hunter2@127.0.0.1:1"))
                .endsWith("init-param store=\"redis://***@127.0.0.1:1\": names a user without a password: write user:password@"
                        + " (:password@ for the default user), or set init-param redis-password-file to read it from a file")
                .doesNotContain("hunter2");
    }

    @Test
    void failsInitOnAnInvalidRedisUrlWithoutEchoingItsPassword() {
        String failure = initFailure("store", "redis://:hunter2@127.0.0.1:notaport/0");

        assertThat(failure).endsWith("init-param store=\"redis://***@127.0.0.1:notaport/0\": has a port that is not a number (must be 1-65535)")
                .doesNotContain("hunter2");
    }

    @Test
    void failsInitOnAStoreUrlWithAPlaceholderTheContainerDidNotExpand() {
        assertThat(initFailure("store", "redis://:${REDIS_PASSWORD}@127.0.0.1:1/0"))
                .contains("init-param store=\"redis://***@127.0.0.1:1/0\": ")
                .contains("unexpanded placeholder");
    }

    @Test
    void failsInitOnAnyValueHoldingAPlaceholderTheContainerDidNotExpand() {
        assertThat(initFailure("store", "${rl.store}")).contains("init-param store=\"${rl.store}\": holds an unexpanded placeholder");
        assertThat(initFailure("redis-key-prefix", "${RL_PREFIX}:"))
                .as("taken literally, a prefix the instances that had it substituted do not share")
                .contains("init-param redis-key-prefix=\"${RL_PREFIX}:\": holds an unexpanded placeholder");
        assertThat(initFailure("redis-client-key-secret", "${RATE_LIMIT_REDIS_CLIENT_KEY_SECRET}"))
                .as("taken literally, a secret anyone reading web.xml knows")
                .contains("init-param redis-client-key-secret=\"(hidden)\": holds an unexpanded placeholder")
                .contains("this container did not substitute it");
    }

    @Test
    void acceptsAGeneratedSecretThatHappensToHoldADollarAndABrace() throws ServletException {
        RateLimitFilter filter = new RateLimitFilter();
        try {
            filter.init(new MapFilterConfig("store", "memory", "redis-client-key-secret", "q7${Vx2-Lm}Tz9#wRk4pA0&hN"));
        } catch (ServletException e) {
            assertThat(e.getMessage()).as("refused for its own sake, not as a placeholder").doesNotContain("placeholder");
        } finally {
            filter.destroy();
        }
    }

    @Test
    void rejectsAnUnknownInitParamSoThatTyposDoNotPassSilently() {
        assertThat(initFailure("trusted-proxy", "10.0.0.0/8"))
                .contains("unknown init-param \"trusted-proxy\"").contains("trusted-proxies");
    }

    @Test
    void neverEchoesAPasswordFromAStoreUrl() {
        assertThat(initFailure("store", "memcached://admin:hunter2@cache:11211"))
                .contains("memcached://***@cache:11211").doesNotContain("hunter2").doesNotContain("admin");
        assertThat(initFailure("store", "redis://:hunter2@127.0.0.1:1", "max-keys-per-limit", "5"))
                .contains("max-keys-per-limit").doesNotContain("hunter2");
    }

    @ParameterizedTest(name = "store={0}")
    @CsvSource({"redis://:hun/ter2@127.0.0.1:notaport/0", "redis://admin:hun@ter2@127.0.0.1:notaport/0",
            "memcached://admin:hun/ter2@cache:11211"})
    void neverEchoesAPasswordHoldingASlashOrAnAt(String url) {
        assertThat(initFailure("store", url)).contains("://***@").doesNotContain("hun").doesNotContain("ter2");
    }

    @ParameterizedTest(name = "store={0}")
    @CsvSource({"redis://admin:hunter2", "redis://:hunter2", "redis://:hunter2/0", "'redis-cluster://10.0.0.1:7000,:hunter2'"})
    void neverEchoesAPasswordWhoseHostWasLeftOut(String url) {
        // Without '@' and a host, the password sits where the port goes.
        assertThat(initFailure("store", url)).contains(":***").doesNotContain("hunter2");
    }

    @ParameterizedTest(name = "store={0}")
    @CsvSource(delimiter = '|', value = {
            // a typo in the scheme: the store itself takes everything before the '@' for credentials
            "redis:/:hunter2@127.0.0.1:6379", "redis//admin:hunter2@127.0.0.1:6379", ":hunter2@127.0.0.1:6379",
            // characters the store accepts unencoded in a password
            "redis://:hun ter2@127.0.0.1:notaport", "redis://admin:hun\"ter2@127.0.0.1:notaport"})
    void neverEchoesAPasswordTheStoreWouldNotEchoEither(String url) {
        assertThat(initFailure("store", url)).contains("***@").doesNotContain("hun").doesNotContain("ter2");
    }

    @Test
    void echoesAValueOfUpTo200CharactersWholeAndCutsALongerOne() {
        String whole = "x".repeat(200);
        String cut = "y".repeat(201);

        assertThat(initFailure("header-style", whole)).contains("init-param header-style=\"" + whole + "\": must be x, ietf or both");
        assertThat(initFailure("header-style", cut)).contains("init-param header-style=\"" + "y".repeat(200) + "...\": must be");
    }

    @Test
    void stripsControlCharactersFromEchoedValues() {
        assertThat(initFailure("header-style", "x\r\nSet-Cookie: a=b")).contains("x??Set-Cookie: a=b").doesNotContain("\n");
    }

    @Test
    void stripsControlCharactersFromValuesTheConfigFileQuotes(@TempDir Path dir) throws IOException {
        Path config = Files.writeString(dir.resolve("limits.json"), """
                {"endpoints": [{"method": "GET\\r\\nFAKE LOG LINE", "path": "/api/x", "name": "x"}],
                 "tiers": {"free": {"x": {"algorithm": "fixed_window", "limit": 1, "window": "1m"}}}}
                """);
        assertThat(initFailure("config", config.toString())).contains("GET??FAKE LOG LINE").doesNotContain("\n", "\r");
    }

    @Test
    void acceptsEveryParamWithAValidValue() throws ServletException {
        RateLimitFilter filter = new RateLimitFilter();
        filter.init(new MapFilterConfig(
                "config", "classpath:dev/ratelimit/config/default-rate-limits.json",
                "store", "memory",
                "max-keys-per-limit", "1000",
                "failure-mode", "fail-closed",
                "trusted-proxies", "10.0.0.0/8, 2001:db8::/32,127.0.0.1",
                "forwarded-header", "forwarded",
                "api-key-header", "X-Key",
                "max-api-key-length", "64",
                "ipv6-prefix-length", "56",
                "header-style", "IETF",
                "shadow", "false",
                "dispatcher-types", "request, error"));
        filter.destroy();
    }

    @ParameterizedTest(name = "store={0}")
    @CsvSource({"redis://127.0.0.1:1", "rediss://127.0.0.1:1", "redis-cluster://127.0.0.1:1", "rediss-cluster://127.0.0.1:1",
            "redis-sentinel://127.0.0.1:1/mymaster"})
    void acceptsEveryRedisUrlFormTheStoreAccepts(String url) throws ServletException {
        RateLimitFilter filter = new RateLimitFilter();
        filter.init(new MapFilterConfig("store", url));
        filter.destroy();
    }

    @ParameterizedTest(name = "failure-mode={0}")
    @CsvSource({"LOCAL_FALLBACK", "local-fallback"})
    void failsInitOnLocalFallbackWithoutARedisStore(String mode) {
        // Nothing falls back to memory from memory: the filter would silently fail open instead.
        assertThat(initFailure("failure-mode", mode)).isEqualTo("RateLimitFilter rateLimit: init-param failure-mode=\"" + mode
                + "\": LOCAL_FALLBACK applies only to a Redis store, but store is memory; use FAIL_OPEN or FAIL_CLOSED");
    }

    @Test
    void trimsTheClientKeySecretAsEveryOtherValueIsTrimmed() {
        // Twelve characters between the XML's line breaks: as short as "hunter2" once the layout is gone.
        assertThat(initFailure("store", "redis://127.0.0.1:1", "redis-client-key-secret", "\n    abcdefghijkl\n  "))
                .contains("init-param redis-client-key-secret=\"(hidden)\": must be at least 16 characters, was 12 characters")
                .doesNotContain("abcdefghijkl");
    }

    @Test
    void acceptsRedisParamsLaidOutOnTheirOwnLines() throws ServletException {
        RateLimitFilter filter = new RateLimitFilter();
        filter.init(new MapFilterConfig(
                "store", "\n    redis://127.0.0.1:1\n  ",
                "redis-key-prefix", "\n    app1:\n  ",
                "redis-client-key-secret", "\n    0123456789abcdef-secret\n  ",
                "redis-timeout", " 250ms ",
                "fallback-share", " 0.5 "));
        filter.destroy();
    }

    @Test
    void refusesInitParamsOnAFilterBuiltInCode() {
        RateLimitFilter built = RateLimitFilter.builder().build();

        assertThatThrownBy(() -> built.init(new MapFilterConfig("shadow", "true")))
                .isInstanceOf(ServletException.class)
                .hasMessageContaining("was built in code and takes no init-params, found [shadow]");
    }
}
