package dev.ratelimit.config;

import dev.ratelimit.InvalidConfigurationException;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.SlidingWindowCounter;
import dev.ratelimit.TokenBucket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RateLimitConfigTest {

    @Test
    void bundledDefaultsAreTheSeedTierTable() {
        RateLimitConfig config = RateLimitConfig.defaults();
        assertThat(config.defaultTier()).isEqualTo("free");
        assertThat(config.tiers()).containsOnlyKeys("free", "pro", "enterprise");
        assertThat(config.limit("free", "scan")).contains(Limit.of("scan", new TokenBucket(10, 1, Duration.ofSeconds(1))));
        assertThat(config.limit("pro", "scan")).contains(Limit.of("scan", new TokenBucket(100, 10, Duration.ofSeconds(1))));
        assertThat(config.limit("enterprise", "scan")).contains(Limit.of("scan", new TokenBucket(500, 100, Duration.ofSeconds(1))));
        assertThat(config.limit("free", "reports")).contains(Limit.of("reports", new SlidingWindowCounter(100, Duration.ofHours(1))));
        assertThat(config.limit("enterprise", "reports")).contains(Limit.of("reports", new SlidingWindowCounter(10_000, Duration.ofHours(1))));
        assertThat(config.limit("free", "login")).contains(Limit.of("login", Policy.fixedWindow(5, Duration.ofMinutes(1))));
        assertThat(config.limit("pro", "login")).contains(Limit.of("login", Policy.fixedWindow(50, Duration.ofMinutes(1))));
        assertThat(config.limit("enterprise", "login")).contains(Limit.of("login", Policy.fixedWindow(200, Duration.ofMinutes(1))));
        assertThat(config.limit("free", "nope")).isEmpty();
        assertThat(config.limit("nope", "scan")).isEmpty();
        assertThat(config.limit("free", null)).as("no endpoint, no limit: not a NullPointerException").isEmpty();
        assertThat(config.limit(null, "scan")).isEmpty();
        assertThat(config.tierPrefixes()).isEqualTo(Map.of("sk-free-", "free", "sk-pro-", "pro", "sk-ent-", "enterprise"));
        assertThat(config.endpoints()).containsExactly(EndpointRule.of("GET", "/api/scan", "scan"),
                EndpointRule.of("GET", "/api/reports", "reports"), EndpointRule.of("POST", "/api/login", "login"));
        assertThat(config.unmatched()).isEmpty();
        assertThat(config.allowlist().paths()).containsExactly("/health");
        assertThat(config.shadow()).isFalse();
    }

    @Test
    void keepsTheOrderOfTiersEndpointsAndPrefixesAsWritten() {
        // Errors, onLimitBound and anything else that walks the maps see the file's order, the same on every run.
        RateLimitConfig config = RateLimitConfig.defaults();
        assertThat(config.tiers().keySet()).containsExactly("free", "pro", "enterprise");
        assertThat(config.tiers().get("pro").keySet()).containsExactly("scan", "reports", "login");
        assertThat(config.tierPrefixes().keySet()).containsExactly("sk-free-", "sk-pro-", "sk-ent-");
        assertThatThrownBy(() -> config.tiers().get("pro").clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> config.tierPrefixes().clear()).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void theBuilderRefusesANullDefaultTierOrAllowlistAtOnce() {
        assertThatThrownBy(() -> RateLimitConfig.builder().defaultTier(null)).isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("defaultTier: must be a tier name, was null");
        assertThatThrownBy(() -> RateLimitConfig.builder().allowlist(null))
                .hasMessage("allowlist: must be an allowlist (Allowlist.NONE for none), was null");
    }

    @Test
    void namesTheJsonPathAndValueOfABadNumber() {
        assertThatThrownBy(() -> parse(tiers("\"scan\": {\"algorithm\": \"token_bucket\", \"capacity\": 0, \"refillTokens\": 1, \"refillPeriod\": \"1s\"}")))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("tiers.pro.scan.capacity: must be > 0, was 0");
    }

    @Test
    void unknownFieldsAreErrors() {
        assertThatThrownBy(() -> parse(tiers("\"scan\": {\"algorithm\": \"fixed_window\", \"limit\": 5, \"window\": \"1m\", \"burst\": 3}")))
                .hasMessage("tiers.pro.scan.burst: is not a known field (known: algorithm, limit, window)");
        assertThatThrownBy(() -> parse("{\"tiers\": {}, \"tier\": \"x\"}"))
                .hasMessageStartingWith("tier: is not a known field");
    }

    @Test
    void duplicateFieldsAreErrors() {
        assertThatThrownBy(() -> parse("{\"defaultTier\": \"pro\", \"defaultTier\": \"free\", \"tiers\": {}}"))
                .hasMessageContaining("is not valid JSON: Duplicate field 'defaultTier'");
    }

    @Test
    void badDurationsAndAlgorithmsAndTypesAreNamed() {
        assertThatThrownBy(() -> parse(tiers("\"scan\": {\"algorithm\": \"fixed_window\", \"limit\": 5, \"window\": \"soon\"}")))
                .hasMessage("tiers.pro.scan.window: must be a duration such as 500ms, 10s, 1m, 1h, 1d or PT1S, was \"soon\"");
        assertThatThrownBy(() -> parse(tiers("\"scan\": {\"algorithm\": \"fixed_window\", \"limit\": 5, \"window\": \"9999999999999d\"}")))
                .hasMessage("tiers.pro.scan.window: must be a duration of at most 12 digits, was \"9999999999999d\"");
        assertThatThrownBy(() -> parse(tiers("\"scan\": {\"algorithm\": \"leaky_bucket\"}")))
                .hasMessageStartingWith("tiers.pro.scan.algorithm: must be one of token_bucket");
        assertThatThrownBy(() -> parse(tiers("\"scan\": {\"algorithm\": \"fixed_window\", \"limit\": 2.5, \"window\": \"1m\"}")))
                .hasMessage("tiers.pro.scan.limit: must be a whole number, was 2.5");
        // A whole number too large for a long is too large, not "not a whole number".
        assertThatThrownBy(() -> parse(tiers("\"scan\": {\"algorithm\": \"fixed_window\", \"limit\": 100000000000000000000, \"window\": \"1m\"}")))
                .hasMessage("tiers.pro.scan.limit: is too large (at most 9223372036854775807), was 100000000000000000000");
        assertThatThrownBy(() -> parse(tiers("\"scan\": {\"algorithm\": \"fixed_window\", \"window\": \"1m\"}")))
                .hasMessage("tiers.pro.scan.limit: is required");
    }

    @Test
    void aDurationOutOfRangeIsQuotedAsWrittenWithTheRange() {
        assertThatThrownBy(() -> parse(tiers("\"scan\": {\"algorithm\": \"fixed_window\", \"limit\": 5, \"window\": \"0s\"}")))
                .hasMessage("tiers.pro.scan.window: must be more than 0 and at most 400d, was \"0s\"");
        assertThatThrownBy(() -> parse(tiers("\"scan\": {\"algorithm\": \"token_bucket\", \"capacity\": 5, \"refillTokens\": 1, "
                + "\"refillPeriod\": \"401d\"}")))
                .hasMessage("tiers.pro.scan.refillPeriod: must be more than 0 and at most 400d, was \"401d\"");
        assertThatThrownBy(() -> parse(tiers("\"scan\": {\"algorithm\": \"gcra\", \"rate\": 5, \"period\": \"P401D\", \"burst\": 1}")))
                .hasMessage("tiers.pro.scan.period: must be more than 0 and at most 400d, was \"P401D\"");
        assertThat(parse(tiers("\"scan\": {\"algorithm\": \"fixed_window\", \"limit\": 5, \"window\": \"400d\"}"))
                .limit("pro", "scan").orElseThrow().policies()).containsExactly(Policy.fixedWindow(5, Duration.ofDays(400)));
    }

    @Test
    void compositeLimitsAreArraysAndTheirErrorsCarryTheIndex() {
        RateLimitConfig config = parse(tiers("\"scan\": [{\"algorithm\": \"token_bucket\", \"capacity\": 10, \"refillTokens\": 10, \"refillPeriod\": \"1s\"},"
                + " {\"algorithm\": \"gcra\", \"rate\": 1000, \"period\": \"1h\", \"burst\": 50}]"));
        assertThat(config.limit("pro", "scan").orElseThrow().policies()).containsExactly(
                TokenBucket.perSecond(10, 10), Policy.gcra(1000, Duration.ofHours(1), 50));
        assertThatThrownBy(() -> parse(tiers("\"scan\": [{\"algorithm\": \"fixed_window\", \"limit\": 1, \"window\": \"1s\"}, {\"algorithm\": \"fixed_window\", \"limit\": -1, \"window\": \"1s\"}]")))
                .hasMessage("tiers.pro.scan[1].limit: must be > 0, was -1");
    }

    @Test
    void aNullNameOrRuleInTheBuilderIsANamedErrorNotANullPointerException() {
        Policy policy = Policy.fixedWindow(5, Duration.ofMinutes(1));
        assertThatThrownBy(() -> RateLimitConfig.builder().tier(null))
                .isInstanceOf(InvalidConfigurationException.class).hasMessage("tiers: must be a tier name, was null");
        assertThatThrownBy(() -> RateLimitConfig.builder().limit(null, "scan", policy))
                .isInstanceOf(InvalidConfigurationException.class).hasMessage("tiers: must be a tier name, was null");
        assertThatThrownBy(() -> RateLimitConfig.builder().limit("free", null, policy))
                .isInstanceOf(InvalidConfigurationException.class).hasMessage("tiers.free: must be an endpoint name, was null");
        assertThatThrownBy(() -> RateLimitConfig.builder().tierPrefix(null, "free"))
                .isInstanceOf(InvalidConfigurationException.class).hasMessage("tierPrefixes: must be a prefix, was null");
        assertThatThrownBy(() -> RateLimitConfig.builder().tierPrefix("sk-free-", null))
                .isInstanceOf(InvalidConfigurationException.class).hasMessage("tierPrefixes.sk-free-: must be a tier name, was null");
        assertThatThrownBy(() -> RateLimitConfig.builder().endpoint(EndpointRule.of("GET", "/x", "scan")).endpoint(null))
                .isInstanceOf(InvalidConfigurationException.class).hasMessage("endpoints[1]: must be a rule, was null");
    }

    @Test
    void aNullInTheRecordsIsANamedErrorNotANullPointerException() {
        Map<String, Map<String, Limit>> tiers = Map.of("free", Map.of());
        assertThatThrownBy(() -> new Allowlist(List.of("/health"), null))
                .isInstanceOf(InvalidConfigurationException.class).hasMessage("allowlist.clients: must be a list (empty for none), was null");
        assertThatThrownBy(() -> new Allowlist(java.util.Arrays.asList("/health", null), List.of()))
                .isInstanceOf(InvalidConfigurationException.class).hasMessage("allowlist.paths[1]: must not be null");
        assertThatThrownBy(() -> new RateLimitConfig("free", tiers, null, List.of(), Optional.empty(), Allowlist.NONE, false))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageStartingWith("tierPrefixes: must be a map");
        assertThatThrownBy(() -> new RateLimitConfig("free", tiers, Map.of(), null, Optional.empty(), Allowlist.NONE, false))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageStartingWith("endpoints: must be a list");
        assertThatThrownBy(() -> new RateLimitConfig("free", tiers, Map.of(), java.util.Arrays.asList((EndpointRule) null),
                Optional.empty(), Allowlist.NONE, false))
                .isInstanceOf(InvalidConfigurationException.class).hasMessage("endpoints[0]: must be a rule, was null");
        assertThatThrownBy(() -> DurationFormat.parse(null, "window"))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageStartingWith("window: must be a duration");
    }

    @Test
    void aPrefixNamedForTwoTiersInTheBuilderIsRefusedAsInJson() {
        assertThatThrownBy(() -> RateLimitConfig.builder().tierPrefix("sk-", "free").tierPrefix("sk-", "pro"))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("tierPrefixes.sk-: already belongs to tier \"free\"; a prefix names one tier, was \"pro\" too");
        RateLimitConfig.builder().tierPrefix("sk-", "free").tierPrefix("sk-", "free");
    }

    @Test
    void crossFieldRulesAreChecked() {
        assertThatThrownBy(() -> parse(tiers("\"scan\": {\"algorithm\": \"fixed_window\", \"limit\": 5, \"window\": \"1m\"}").replace("\"pro\", \"tiers\"", "\"gold\", \"tiers\"")))
                .hasMessage("defaultTier: must name a defined tier [pro], was \"gold\"");
        // The tier's own name is the error, not the default tier that names it.
        assertThatThrownBy(() -> RateLimitConfig.builder().limit("fr ee", "scan", Policy.fixedWindow(1, Duration.ofSeconds(1))).build())
                .hasMessage("tiers: tier names must be 1-64 characters of [A-Za-z0-9._-], was \"fr ee\"");
        assertThatThrownBy(() -> parse("{\"tierPrefixes\": {\"sk-x-\": \"gold\"}, "
                + tiers("\"scan\": {\"algorithm\": \"fixed_window\", \"limit\": 5, \"window\": \"1m\"}").substring(1)))
                .hasMessage("tierPrefixes.sk-x-: must name a defined tier [pro], was \"gold\"");
        assertThatThrownBy(() -> parse("{\"endpoints\": [{\"method\": \"GET\", \"path\": \"/x\", \"name\": \"scan\", \"cost\": 6}], "
                + tiers("\"scan\": {\"algorithm\": \"fixed_window\", \"limit\": 5, \"window\": \"1m\"}").substring(1)))
                .hasMessageStartingWith("endpoints[0].cost: must not exceed the smallest limit of \"scan\" in tier \"pro\" (5)");
        assertThatThrownBy(() -> parse("{\"endpoints\": [{\"path\": \"api\", \"name\": \"scan\"}], "
                + tiers("\"scan\": {\"algorithm\": \"fixed_window\", \"limit\": 5, \"window\": \"1m\"}").substring(1)))
                .hasMessage("endpoints[0].path: must start with /, was \"api\"");
    }

    @Test
    void everyTierDefinesTheSameEndpoints() {
        assertThatThrownBy(() -> RateLimitConfig.builder()
                .limit("free", "scan", TokenBucket.perSecond(10, 1))
                .limit("free", "login", Policy.fixedWindow(5, Duration.ofMinutes(1)))
                .limit("pro", "scan", TokenBucket.perSecond(100, 10))
                .build())
                .hasMessage("tiers.pro: must define endpoint \"login\" (tier \"free\" does), has [scan]");
    }

    @Test
    void buildsInCode() {
        RateLimitConfig config = RateLimitConfig.builder()
                .endpoint(EndpointRule.of("GET", "/api/scan", "scan"))
                .limit("free", "scan", TokenBucket.perSecond(10, 1))
                .limit("pro", "scan", TokenBucket.perSecond(100, 10))
                .tierPrefix("sk-pro-", "pro")
                .unmatched(Policy.fixedWindow(100, Duration.ofMinutes(1)))
                .build();
        assertThat(config.limit("pro", "scan").orElseThrow().policies()).containsExactly(TokenBucket.perSecond(100, 10));
        assertThat(config.unmatched().orElseThrow().name()).isEqualTo("default");
    }

    @Test
    void buildsInCodeOneLimitPerClientForEveryRequest() {
        RateLimitConfig config = RateLimitConfig.builder()
                .tier("free")
                .unmatched(TokenBucket.perSecond(10, 1))
                .build();

        assertThat(config.tiers()).containsOnlyKeys("free");
        assertThat(config.tiers().get("free")).isEmpty();
        assertThat(config.endpoints()).isEmpty();
        assertThat(config.unmatched().orElseThrow().policies()).containsExactly(TokenBucket.perSecond(10, 1));
    }

    @Test
    void refusesATierDeclaredWithoutLimitsWhenAnotherTierHasEndpointLimits() {
        RateLimitConfig.Builder builder = RateLimitConfig.builder()
                .endpoint(EndpointRule.of("GET", "/api/scan", "scan"))
                .limit("free", "scan", TokenBucket.perSecond(10, 1))
                .tier("pro")
                .unmatched(TokenBucket.perSecond(10, 1));

        assertThatThrownBy(builder::build).isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("tiers.pro").hasMessageContaining("must define endpoint \"scan\"");
    }

    @Test
    void endpointRulesMatchExactPathsOneSegmentOrAnyDepth() {
        assertThat(EndpointRule.of("GET", "/api/scan", "scan").matches("GET", "/api/scan")).isTrue();
        assertThat(EndpointRule.of("GET", "/api/scan", "scan").matches("POST", "/api/scan")).isFalse();
        assertThat(EndpointRule.of("get", "/api/scan", "scan").matches("GET", "/api/scan/x")).isFalse();
        assertThat(EndpointRule.of("*", "/api/reports/*", "r").matches("DELETE", "/api/reports/42")).isTrue();
        assertThat(EndpointRule.of("*", "/api/reports/*", "r").matches("GET", "/api/reports/42/pdf")).isFalse();
        assertThat(EndpointRule.of("*", "/api/reports/*", "r").matches("GET", "/api/reports/")).isFalse();
        assertThat(EndpointRule.of("*", "/api/**", "r").matches("GET", "/api")).isTrue();
        assertThat(EndpointRule.of("*", "/api/**", "r").matches("GET", "/api/a/b/c")).isTrue();
        assertThat(EndpointRule.of("*", "/api/**", "r").matches("GET", "/apix")).isFalse();
        assertThatThrownBy(() -> EndpointRule.of("GET", "/api/*/x", "r")).hasMessage("path: may only end in /* or /**, was \"/api/*/x\"");
    }

    @Test
    void aMethodIsAnyHttpTokenUpperCased() {
        assertThat(EndpointRule.of("version-control", "/x", "r").method()).isEqualTo("VERSION-CONTROL");
        assertThat(EndpointRule.of("UPDATEREDIRECTREF", "/x", "r").method()).isEqualTo("UPDATEREDIRECTREF");
        for (String method : new String[] {"GE T", "*GET", "", "GET/", "X".repeat(33)}) {
            assertThatThrownBy(() -> EndpointRule.of(method, "/x", "r")).as(method)
                    .hasMessage("method: must be an HTTP method or *, was \"" + method + "\"");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"po\u017ft", "\u00df", "l\u0131st", "G\u0130T"})
    void aMethodWithANonAsciiLetterIsRefusedNotUpperCasedIntoAnother(String method) {
        // Upper-cased by Unicode rules these become POST, SS, LIST, GIT: methods the file never named.
        assertThatThrownBy(() -> parse("{\"endpoints\": [{\"method\": \"" + method + "\", \"path\": \"/api/scan\", \"name\": \"scan\"}], "
                + "\"tiers\": {\"free\": {\"scan\": {\"algorithm\": \"fixed_window\", \"limit\": 5, \"window\": \"1m\"}}}}"))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("endpoints[0].method: must be an HTTP method or *, was \"" + method + "\"");
    }

    @Test
    void durationsReadShortAndIsoForms() {
        assertThat(DurationFormat.parse("500ms", "w")).isEqualTo(Duration.ofMillis(500));
        assertThat(DurationFormat.parse("1d", "w")).isEqualTo(Duration.ofDays(1));
        assertThat(DurationFormat.parse("250us", "w")).isEqualTo(Duration.ofNanos(250_000));
        assertThat(DurationFormat.parse("PT1.5S", "w")).isEqualTo(Duration.ofMillis(1500));
        assertThat(DurationFormat.format(Duration.ofHours(1))).isEqualTo("1h");
        assertThat(DurationFormat.format(Duration.ofMillis(1500))).isEqualTo("1500ms");
        assertThat(DurationFormat.format(Duration.ZERO)).isEqualTo("0s");
    }

    @Test
    void aDurationNoShortFormHoldsExactlyIsFormattedInIsoAndReadsBack() {
        assertThat(DurationFormat.format(Duration.ofNanos(1_500))).isEqualTo("PT0.0000015S");   // was "1us", cut
        assertThat(DurationFormat.format(Duration.ofNanos(1))).isEqualTo("PT0.000000001S");    // was "0s"
        assertThat(DurationFormat.format(Duration.ofSeconds(-90))).isEqualTo("PT-1M-30S");      // was "-90s", refused by parse
        assertThat(DurationFormat.format(Duration.ofDays(200_000))).isEqualTo("200000d");       // threw: toNanos overflowed
        assertThat(DurationFormat.format(Duration.ofNanos(1_000_001_000))).isEqualTo("1000001us");
        assertThat(DurationFormat.format(Duration.ofSeconds(Long.MAX_VALUE))).isEqualTo(Duration.ofSeconds(Long.MAX_VALUE).toString());
        for (Duration d : List.of(Duration.ofNanos(1_500), Duration.ofNanos(1), Duration.ofSeconds(-90), Duration.ofDays(200_000),
                Duration.ofNanos(1_000_001_000), Duration.ofMillis(999_999_999_999L), Duration.ofMillis(1_000_000_000_001L),
                Duration.ofSeconds(Long.MAX_VALUE))) {
            assertThat(DurationFormat.parse(DurationFormat.format(d), "w")).as("%s", d).isEqualTo(d);
        }
    }

    @Test
    void contentAfterTheConfigurationObjectIsAnError() {
        String config = tiers("\"scan\": {\"algorithm\": \"fixed_window\", \"limit\": 5, \"window\": \"1m\"}");
        assertThatThrownBy(() -> parse(config + "\n{\"defaultTier\": \"pro\"}"))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("test.json: is not valid JSON: unexpected content after the end of the configuration object at line 2, column 2");
        assertThatThrownBy(() -> parse(config + "}")).hasMessageStartingWith("test.json: is not valid JSON: Unexpected close marker '}'");
        assertThat(parse(config + "\n\t \n").defaultTier()).isEqualTo("pro");
    }

    @Test
    void anUnclosedObjectOrArrayIsPlacedByLineAndColumnWithoutJacksonsSourceNote() {
        assertThatThrownBy(() -> parse("{\"tiers\": {"))
                .hasMessage("test.json: is not valid JSON: Unexpected end-of-input: expected close marker for Object "
                        + "(start marker at line 1, column 11) at line 1, column 12");
        assertThatThrownBy(() -> parse("{\"tiers\": [}"))
                .hasMessage("test.json: is not valid JSON: Unexpected close marker '}': expected ']' "
                        + "(for Array starting at line 1, column 11) at line 1, column 12");
    }

    @Test
    void aLimitMustBeNamedAfterItsEndpoint() {
        assertThatThrownBy(() -> new RateLimitConfig("free", Map.of("free", Map.of("scan", Limit.of("other", TokenBucket.perSecond(10, 1)))),
                Map.of(), java.util.List.of(EndpointRule.of("GET", "/api/scan", "scan")), java.util.Optional.empty(), Allowlist.NONE, false))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("tiers.free.scan: must be a limit named after its endpoint, \"scan\", was named \"other\"");
    }

    private static String tiers(String endpoints) {
        return "{\"defaultTier\": \"pro\", \"tiers\": {\"pro\": {" + endpoints + "}}}";
    }

    private static RateLimitConfig parse(String json) {
        try {
            return RateLimitConfig.fromJson(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)), "test.json");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void aBadLimitBuiltInCodeNamesItsTierAndEndpoint() {
        TokenBucket bucket = TokenBucket.perSecond(10, 1);
        assertThatThrownBy(() -> RateLimitConfig.builder().limit("free", "scan", bucket, null).build())
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("tiers.free.scan.policies[1]: must not be null");
        RateLimitConfig.Builder nine = RateLimitConfig.builder();
        for (int i = 1; i <= 9; i++) {
            nine.limit("free", "scan", TokenBucket.perSecond(i, 1));
        }
        assertThatThrownBy(nine::build)
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("tiers.free.scan.policies: must have at most 8 policies, was 9");
        assertThatThrownBy(() -> RateLimitConfig.builder().unmatched(bucket, null))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("unmatched.policies[1]: must not be null");
    }

    @Test
    void anUnmatchedLimitNamedOtherwiseThanDefaultIsRefused() {
        // Only the record's own constructor can name it: the builder and JSON always say "default".
        Limit scan = Limit.of("scan", Policy.fixedWindow(5, Duration.ofMinutes(1)));
        assertThatThrownBy(() -> new RateLimitConfig("free", Map.of("free", Map.of("scan", scan)), Map.of(),
                List.of(EndpointRule.of("GET", "/api/scan", "scan")), Optional.of(scan), Allowlist.NONE, false))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("unmatched: must be a limit named \"default\", was named \"scan\"");
    }

    @Test
    void anEndpointNamedLikeTheUnmatchedLimitIsRefusedWhenUnmatchedRequestsAreLimited() {
        RateLimitConfig.Builder builder = RateLimitConfig.builder()
                .endpoint(EndpointRule.of("GET", "/api/default", "default"))
                .limit("free", "default", Policy.fixedWindow(5, Duration.ofMinutes(1)));

        assertThat(builder.build().endpoints()).hasSize(1);   // unmatched unlimited: the name is free
        assertThatThrownBy(() -> builder.unmatched(Policy.fixedWindow(5, Duration.ofMinutes(1))).build())
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("tiers.free.default")
                .hasMessageContaining("name the endpoint otherwise");
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {"sk-pro- ", " sk-pro-", "sk pro", "sk-pro-\\n", "sk-pr\\u00f6-"})
    void refusesATierPrefixNoApiKeyCanStartWith(String prefix) {
        // API keys are visible ASCII (the filter answers others with a 400): "sk-pro- " would silently
        // leave every pro key in the default tier.
        String json = "{\"tierPrefixes\": {\"" + prefix + "\": \"free\"}, \"tiers\": {\"free\": {}}}";
        String shown = prefix.replace("\\n", "?").replace("\\u00f6", "?");

        assertThatThrownBy(() -> parse(json))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("tierPrefixes." + shown + ": must be visible ASCII (! to ~) like the API keys it matches, was \"" + shown + "\"");
    }

    @ParameterizedTest
    @ValueSource(strings = {"dev/ratelimit/config/default-rate-limits.json", "/dev/ratelimit/config/default-rate-limits.json"})
    void aClasspathResourceLoadsWithOrWithoutALeadingSlashAsTheInitParamDoes(String resource) {
        // Class.getResource takes "/x.json"; a class loader never finds it, and the config=classpath:/x.json init-param strips it.
        assertThat(RateLimitConfig.fromClasspath(resource)).isEqualTo(RateLimitConfig.defaults());
    }

    @Test
    void aMissingClasspathResourceFailsNamingIt() {
        assertThatThrownBy(() -> RateLimitConfig.fromClasspath("no-such-rate-limits.json"))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("config: classpath resource not found: no-such-rate-limits.json");
    }

    @Test
    void eachPartOfTheFileMustHaveItsJsonTypeAndSaysWhichItHas() {
        String scan = "\"scan\": {\"algorithm\": \"fixed_window\", \"limit\": 5, \"window\": \"1m\"}";
        String rest = tiers(scan).substring(1);
        assertThatThrownBy(() -> parse("{\"tiers\": \"pro\"}")).hasMessage("tiers: must be a JSON object, was \"pro\"");
        assertThatThrownBy(() -> parse("{\"tiers\": {\"pro\": 5}}")).hasMessage("tiers.pro: must be a JSON object, was 5");
        assertThatThrownBy(() -> parse(tiers("\"scan\": 5"))).hasMessage("tiers.pro.scan: must be a JSON object, was 5");
        assertThatThrownBy(() -> parse("{\"tierPrefixes\": [], " + rest)).hasMessage("tierPrefixes: must be a JSON object, was []");
        assertThatThrownBy(() -> parse("{\"endpoints\": {}, " + rest)).hasMessage("endpoints: must be a JSON array, was {}");
        assertThatThrownBy(() -> parse("{\"endpoints\": [\"/x\"], " + rest)).hasMessage("endpoints[0]: must be a JSON object, was \"/x\"");
        assertThatThrownBy(() -> parse("{\"allowlist\": [], " + rest)).hasMessage("allowlist: must be a JSON object, was []");
        assertThatThrownBy(() -> parse("{\"allowlist\": {\"paths\": \"/health\"}, " + rest))
                .hasMessage("allowlist.paths: must be a JSON array, was \"/health\"");
        assertThatThrownBy(() -> parse("{\"unmatched\": 5, " + rest))
                .hasMessage("unmatched: must be \"unlimited\", a policy or an array of policies, was 5");
        assertThatThrownBy(() -> parse("{\"shadow\": \"yes\", " + rest)).hasMessage("shadow: must be true or false, was \"yes\"");
    }

    @Test
    void unknownFieldsAreErrorsInEveryObject() {
        String rest = tiers("\"scan\": {\"algorithm\": \"fixed_window\", \"limit\": 5, \"window\": \"1m\"}").substring(1);
        assertThatThrownBy(() -> parse("{\"allowlist\": {\"ips\": []}, " + rest))
                .hasMessage("allowlist.ips: is not a known field (known: clients, paths)");
        assertThatThrownBy(() -> parse("{\"endpoints\": [{\"path\": \"/x\", \"name\": \"scan\", \"limit\": 1}], " + rest))
                .hasMessage("endpoints[0].limit: is not a known field (known: cost, method, name, path, shadow)");
        assertThatThrownBy(() -> parse(tiers("\"scan\": {\"algorithm\": \"token_bucket\", \"capacity\": 5, \"refillTokens\": 1, "
                + "\"refillPeriod\": \"1s\", \"window\": \"1m\"}")))
                .hasMessage("tiers.pro.scan.window: is not a known field (known: algorithm, capacity, refillPeriod, refillTokens)");
        assertThatThrownBy(() -> parse(tiers("\"scan\": {\"algorithm\": \"gcra\", \"rate\": 5, \"period\": \"1s\", \"burst\": 1, \"limit\": 5}")))
                .hasMessage("tiers.pro.scan.limit: is not a known field (known: algorithm, burst, period, rate)");
    }

    @Test
    void aMissingTopLevelFieldIsNamedWithoutAPrefix() {
        assertThatThrownBy(() -> parse("{\"defaultTier\": \"pro\"}")).hasMessage("tiers: is required");
    }

    @Test
    void shadowModeReadsForTheWholeConfigurationAndForOneEndpoint() {
        RateLimitConfig config = parse("{\"shadow\": true, \"endpoints\": [{\"path\": \"/x\", \"name\": \"scan\", \"shadow\": true},"
                + " {\"path\": \"/y\", \"name\": \"scan\", \"shadow\": false}], "
                + tiers("\"scan\": {\"algorithm\": \"fixed_window\", \"limit\": 5, \"window\": \"1m\"}").substring(1));
        assertThat(config.shadow()).isTrue();
        assertThat(config.endpoints()).extracting(EndpointRule::shadow).containsExactly(true, false);
        assertThat(parse(tiers("\"scan\": {\"algorithm\": \"fixed_window\", \"limit\": 5, \"window\": \"1m\"}")).shadow()).isFalse();
        assertThatThrownBy(() -> parse("{\"endpoints\": [{\"path\": \"/x\", \"name\": \"scan\", \"shadow\": 1}], "
                + tiers("\"scan\": {\"algorithm\": \"fixed_window\", \"limit\": 5, \"window\": \"1m\"}").substring(1)))
                .hasMessage("endpoints[0].shadow: must be true or false, was 1");
    }

    @Test
    void loadsAFileAndSaysWhyOneCannotBeRead(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws java.io.IOException {
        java.nio.file.Path file = dir.resolve("rate-limits.json");
        java.nio.file.Files.writeString(file, tiers("\"scan\": {\"algorithm\": \"fixed_window\", \"limit\": 5, \"window\": \"1m\"}"));
        assertThat(RateLimitConfig.fromJson(file).defaultTier()).isEqualTo("pro");

        java.nio.file.Path missing = dir.resolve("missing.json");
        assertThatThrownBy(() -> RateLimitConfig.fromJson(missing)).isInstanceOf(java.io.UncheckedIOException.class)
                .hasMessage("cannot read rate-limit configuration " + missing + ": no such file");
        java.nio.file.Path underAFile = file.resolve("x.json");
        assertThatThrownBy(() -> RateLimitConfig.fromJson(underAFile)).isInstanceOf(java.io.UncheckedIOException.class)
                .hasMessage("cannot read rate-limit configuration " + underAFile + ": Not a directory");
        assertThatThrownBy(() -> RateLimitConfig.fromJson(dir)).isInstanceOf(java.io.UncheckedIOException.class)
                .hasMessage("cannot read rate-limit configuration " + dir + ": java.io.IOException: Is a directory");
    }

    @Test
    void aClasspathResourceIsLookedUpWithTheThreadsContextClassLoaderFirst(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        // In a servlet container the web application's own resources are the context class loader's, not the library's.
        java.nio.file.Files.writeString(dir.resolve("webapp-rate-limits.json"),
                tiers("\"scan\": {\"algorithm\": \"fixed_window\", \"limit\": 5, \"window\": \"1m\"}"));
        ClassLoader before = Thread.currentThread().getContextClassLoader();
        try (java.net.URLClassLoader webapp = new java.net.URLClassLoader(new java.net.URL[] {dir.toUri().toURL()}, null)) {
            Thread.currentThread().setContextClassLoader(webapp);
            assertThat(RateLimitConfig.fromClasspath("webapp-rate-limits.json").defaultTier()).isEqualTo("pro");
        } finally {
            Thread.currentThread().setContextClassLoader(before);
        }
    }

    @Test
    void anEndpointRuleWithABadNameQuotesIt() {
        assertThatThrownBy(() -> EndpointRule.of("GET", "/x", "a b"))
                .hasMessage("name: must be 1-64 characters of [A-Za-z0-9._-], was \"a b\"");
        assertThatThrownBy(() -> EndpointRule.of("GET", "/x", null))
                .hasMessage("name: must be 1-64 characters of [A-Za-z0-9._-], was null");
    }

    @Test
    void aNullPrefixOrTierInTheRecordIsANamedErrorNotANullPointerException() {
        Map<String, Map<String, Limit>> tiers = Map.of("free", Map.of());
        Map<String, String> prefixes = new java.util.HashMap<>();
        prefixes.put("sk-", null);
        assertThatThrownBy(() -> new RateLimitConfig("free", tiers, prefixes, List.of(), Optional.empty(), Allowlist.NONE, false))
                .isInstanceOf(InvalidConfigurationException.class).hasMessage("tierPrefixes: must map prefixes to tiers, had sk- -> null");
    }

    @Test
    void aTierPrefixMayUseTheFirstAndLastVisibleAsciiCharacters() {
        RateLimitConfig config = RateLimitConfig.builder().tier("free").tierPrefix("!~", "free").build();
        assertThat(config.tierPrefixes()).containsEntry("!~", "free");
    }

    @Test
    void anEndpointMayCostExactlyItsSmallestLimit() {
        RateLimitConfig config = RateLimitConfig.builder()
                .endpoint(new EndpointRule("POST", "/api/batch", "batch", 5, false))
                .limit("free", "batch", Policy.fixedWindow(5, Duration.ofMinutes(1)), Policy.fixedWindow(50, Duration.ofHours(1)))
                .build();
        assertThat(config.endpoints()).extracting(EndpointRule::cost).containsExactly(5L);
    }

    @Test
    void everyBuilderSettingChainsAndADeclaredTierTakesLimitsLater() {
        Allowlist allowlist = new Allowlist(List.of("/health"), List.of());
        RateLimitConfig config = RateLimitConfig.builder()
                .defaultTier("pro")
                .tier("pro")
                .limit("pro", "scan", TokenBucket.perSecond(10, 1))
                .allowlist(allowlist)
                .shadow(true)
                .build();
        assertThat(config.defaultTier()).isEqualTo("pro");
        assertThat(config.limit("pro", "scan")).isPresent();
        assertThat(config.allowlist()).isEqualTo(allowlist);
        assertThat(config.shadow()).isTrue();
    }

    @Test
    void theLongestNumberTheShortFormReadsIsWrittenInIt() {
        Duration longest = Duration.ofNanos(999_999_999_999L * 1_000);
        assertThat(DurationFormat.format(longest)).isEqualTo("999999999999us");
        assertThat(DurationFormat.parse("999999999999us", "d")).isEqualTo(longest);
        Duration longer = longest.plusNanos(2_000);
        assertThat(DurationFormat.format(longer)).as("13 digits").isEqualTo(longer.toString());
    }
}
