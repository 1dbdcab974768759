package dev.ratelimit.servlet;

import dev.ratelimit.DecisionEvent;
import dev.ratelimit.FailureMode;
import dev.ratelimit.InvalidConfigurationException;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.Verdict;
import dev.ratelimit.config.Allowlist;
import dev.ratelimit.config.EndpointRule;
import dev.ratelimit.config.RateLimitConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ShadowAllowlistTest {
    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00.250Z"));
    private final RecordingListener recorder = new RecordingListener();
    private final List<DecisionEvent> events = recorder.decisions;
    /** Each request the filter could not decide, as "REASON passed" or "REASON refused". */
    private final List<String> undecided = recorder.undecided;
    private TestServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private void start(RateLimitFilterBuilder builder) {
        server = TestServer.start(builder.clock(clock).listener(recorder).build());
    }

    private static RateLimitConfig.Builder twoEndpoints(boolean scanShadow) {
        return RateLimitConfig.builder()
                .endpoint(new EndpointRule("GET", "/api/scan", "scan", 1, scanShadow))
                .endpoint(EndpointRule.of("POST", "/api/login", "login"))
                .limit("free", "scan", Policy.tokenBucket(2, 1, Duration.ofSeconds(1)))
                .limit("free", "login", Policy.fixedWindow(2, Duration.ofMinutes(1)));
    }

    @Test
    void globalShadowModeDecidesAndReportsButNeverRefuses() {
        start(RateLimitFilter.builder().shadow(true));

        assertThat(server.statuses(10, 1, "GET", "/api/scan")).containsOnly(200);
        HttpResponse<String> eleventh = server.get("/api/scan");

        assertThat(eleventh.statusCode()).isEqualTo(200);
        assertThat(eleventh.body()).isEqualTo("ok GET REQUEST /api/scan");
        assertThat(eleventh.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
        // Not a 429, so t is the time until the bucket is full again, as on any 200.
        assertThat(eleventh.headers().firstValue("RateLimit")).hasValue("\"scan\";r=0;t=10");
        assertThat(eleventh.headers().firstValue("Retry-After")).isEmpty();
        assertThat(events).hasSize(11).allMatch(DecisionEvent::shadow);
        assertThat(events.get(10).decision().verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(events.get(10).tier()).isEqualTo("free");
        assertThat(events.get(10).endpoint()).isEqualTo("scan");
    }

    @Test
    void shadowModeLetsAMalformedApiKeyThroughCountedAgainstNoOne() {
        start(RateLimitFilter.builder().config(twoEndpoints(true).build()));

        // /api/scan is in shadow mode: a key with a space passes, with no headers and no decision.
        HttpResponse<String> shadowed = server.get("/api/scan", "X-API-Key", "sk-pro-a b");
        assertThat(shadowed.statusCode()).isEqualTo(200);
        assertThat(shadowed.body()).isEqualTo("ok GET REQUEST /api/scan");
        assertThat(shadowed.headers().firstValue("X-RateLimit-Limit")).isEmpty();
        assertThat(server.get("/api/scan", "X-API-Key", "k".repeat(257)).statusCode()).isEqualTo(200);
        assertThat(events).isEmpty();
        assertThat(undecided).containsExactly("INVALID_CLIENT passed", "INVALID_CLIENT passed");
        // /api/login is enforced: the same key is a 400 there.
        assertThat(server.send("POST", "/api/login", "X-API-Key", "sk-pro-a b").statusCode()).isEqualTo(400);
        assertThat(undecided).containsExactly("INVALID_CLIENT passed", "INVALID_CLIENT passed", "INVALID_CLIENT refused");
        assertThat(events).isEmpty();
    }

    @Test
    void shadowModeEverywherePassesARequestTheFilterFailedToDecideEvenWhenFailClosed() {
        start(RateLimitFilter.builder().shadow(true).failureMode(FailureMode.FAIL_CLOSED).clientIdResolver(request -> {
            throw new IllegalStateException("a resolver that fails");
        }));

        HttpResponse<String> passed = server.get("/api/scan");
        assertThat(passed.statusCode()).isEqualTo(200);
        assertThat(passed.body()).isEqualTo("ok GET REQUEST /api/scan");
        assertThat(undecided).containsExactly("FAILURE passed");
    }

    @Test
    void aShadowedEndpointPassesARequestTheFilterFailedToDecideWhileAnEnforcedOneAnswers503() {
        start(RateLimitFilter.builder().config(twoEndpoints(true).build()).failureMode(FailureMode.FAIL_CLOSED)
                .clientIdResolver(request -> {
                    throw new IllegalStateException("a resolver that fails");
                }));

        assertThat(server.get("/api/scan").statusCode()).isEqualTo(200);
        assertThat(server.send("POST", "/api/login").statusCode()).isEqualTo(503);
        assertThat(undecided).containsExactly("FAILURE passed", "FAILURE refused");
        assertThat(events).isEmpty();
    }

    @Test
    void shadowModeFromTheConfigurationWorksTheSame() {
        start(RateLimitFilter.builder().config(twoEndpoints(false).shadow(true).build()));

        assertThat(server.statuses(5, 1, "POST", "/api/login")).containsOnly(200);
        assertThat(events).hasSize(5).allMatch(DecisionEvent::shadow);
        assertThat(events.stream().map(e -> e.decision().verdict()))
                .containsExactly(Verdict.ALLOWED, Verdict.ALLOWED, Verdict.REJECTED, Verdict.REJECTED, Verdict.REJECTED);
    }

    @Test
    void shadowOnOneEndpointLeavesTheOthersEnforced() {
        start(RateLimitFilter.builder().config(twoEndpoints(true).build()));

        assertThat(server.statuses(4, 1, "GET", "/api/scan")).containsOnly(200);
        assertThat(server.statuses(3, 1, "POST", "/api/login")).containsExactly(200, 200, 429);
        assertThat(events.stream().filter(e -> e.endpoint().equals("scan"))).hasSize(4).allMatch(DecisionEvent::shadow);
        assertThat(events.stream().filter(e -> e.endpoint().equals("login"))).hasSize(3).noneMatch(DecisionEvent::shadow);
    }

    @Test
    void allowlistedPathsAreNeverLimitedNorCounted() {
        RateLimitConfig config = RateLimitConfig.builder()
                .tier("free")
                .unmatched(Policy.fixedWindow(2, Duration.ofHours(1)))
                .allowlist(new Allowlist(List.of("/health", "/static/**"), List.of()))
                .build();
        start(RateLimitFilter.builder().config(config));

        assertThat(server.statuses(5, 1, "GET", "/health")).containsOnly(200);
        assertThat(server.statuses(5, 1, "GET", "/static/css/site.css")).containsOnly(200);
        assertThat(server.get("/health").headers().firstValue("X-RateLimit-Limit")).isEmpty();
        // Not limited, so not undecided either: a malformed key there is no one's business.
        assertThat(server.get("/health", "X-API-Key", "sk-pro-a b").statusCode()).isEqualTo(200);
        assertThat(events).isEmpty();
        assertThat(undecided).isEmpty();
        // Everything else falls under the unmatched limit of 2 an hour.
        assertThat(server.statuses(3, 1, "GET", "/elsewhere")).containsExactly(200, 200, 429);
        assertThat(events).extracting(DecisionEvent::endpoint).containsOnly("default");
    }

    @Test
    void aMistypedAllowlistEntryIsRefusedWithoutEchoingWhatMayBeAnApiKey() {
        // The mistake this error catches: a key listed without its "apikey:" prefix.
        RateLimitConfig key = twoEndpoints(false).allowlist(new Allowlist(List.of(), List.of("10.0.0.0/8", "sk-ent-4f9c2a7e1b3d5f60"))).build();
        assertThatThrownBy(() -> RateLimitFilter.builder().config(key))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("allowlist.clients[1]: must be a client id (apikey:..., ip:...) or a CIDR block (10.0.0.0/8), "
                        + "was 23 characters (not shown: it may be an API key; write apikey:<key> to allowlist a key)");
        // A hex-only key (a random token) is no address either.
        RateLimitConfig hexKey = twoEndpoints(false).allowlist(new Allowlist(List.of(), List.of("4f9c2a7e1b3d5f60aa17"))).build();
        assertThatThrownBy(() -> RateLimitFilter.builder().config(hexKey)).hasMessageEndingWith("was 20 characters "
                + "(not shown: it may be an API key; write apikey:<key> to allowlist a key)");
        // An address-like entry is shown: it holds no secret, and the typo is in it.
        RateLimitConfig typo = twoEndpoints(false).allowlist(new Allowlist(List.of(), List.of("10.0.0.300"))).build();
        assertThatThrownBy(() -> RateLimitFilter.builder().config(typo)).hasMessageEndingWith("was \"10.0.0.300\"");
        // A resolver's id with one colon is an id, even made of hex digits.
        RateLimitConfig customId = twoEndpoints(false).allowlist(new Allowlist(List.of(), List.of("acc:1234"))).build();
        RateLimitFilter.builder().config(customId);
        RateLimitConfig v6Typo2 = twoEndpoints(false).allowlist(new Allowlist(List.of(), List.of("2001:db8:::1"))).build();
        assertThatThrownBy(() -> RateLimitFilter.builder().config(v6Typo2)).hasMessageEndingWith("was \"2001:db8:::1\"");
        // A mistyped IPv6 block is refused too, not kept as a client id "2001:..." that never matches.
        RateLimitConfig v6typo = twoEndpoints(false).allowlist(new Allowlist(List.of(), List.of("2001:db8::1/129"))).build();
        assertThatThrownBy(() -> RateLimitFilter.builder().config(v6typo)).hasMessageEndingWith("was \"2001:db8::1/129\"");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "IP:10.0.0.1          | must start with \"ip:\" in lower case",
            "ApiKey:sk-pro-1      | must start with \"apikey:\" in lower case",
            "apikey:              | must name an API key after \"apikey:\"",
            "apikey:sk-pro-é       | must name an API key after \"apikey:\"",
            "'apikey:sk pro'      | must not contain whitespace",
            "'2001:db8::/ 32'     | must not contain whitespace",
            "10.0.0.7:8080        | must be an address without a port",
            "ip:[2001:db8::1]:443 | must be an address without a port",
            "apikey:sk\u0001x     | must not contain control characters",
            // nothing before the colon: no prefix a client id has
            ":abc                 | must be a client id (apikey:..., ip:...) or a CIDR block"})
    void anAllowlistEntryNoClientIdCouldEverMatchIsRefused(String entry, String problem) {
        // Kept as an exact id, each would have been accepted and never exempted anyone.
        RateLimitConfig config = twoEndpoints(false).allowlist(new Allowlist(List.of(), List.of("10.0.0.0/8", entry))).build();
        assertThatThrownBy(() -> RateLimitFilter.builder().config(config))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageStartingWith("allowlist.clients[1]: " + problem)
                .hasMessageNotContaining("sk-pro");
    }

    @Test
    void aResolversOwnIdMayHoldSpaces() {
        RateLimitConfig config = twoEndpoints(false).allowlist(new Allowlist(List.of(), List.of("user:Ada Lovelace"))).build();
        start(RateLimitFilter.builder().config(config).clientIdResolver(request -> "user:Ada Lovelace"));

        assertThat(server.statuses(5, 1, "GET", "/api/scan")).containsOnly(200);
    }

    @Test
    void anAllowlistedClientsRequestsReachTheApplicationWithoutRateLimitHeaders() {
        RateLimitConfig config = twoEndpoints(false).allowlist(new Allowlist(List.of(), List.of("apikey:sk-ops-1"))).build();
        start(RateLimitFilter.builder().config(config));

        for (int i = 0; i < 3; i++) {   // past the scan bucket of 2
            HttpResponse<String> response = server.get("/api/scan", "X-API-Key", "sk-ops-1");
            assertThat(response.statusCode()).isEqualTo(200);
            // The application answered, not an empty 200 from a filter that stopped the chain.
            assertThat(response.body()).startsWith("ok GET REQUEST /api/scan");
            assertThat(HeadersTest.rateLimitHeaders(response)).isEmpty();
        }
    }

    @Test
    void anAllowlistedPathThatExemptsEveryRequestOfARuleIsRefused() {
        // The rule's limit would never apply, like a rule listed after one that matches all it does.
        RateLimitConfig config = twoEndpoints(false).allowlist(new Allowlist(List.of("/health", "/api/**"), List.of())).build();
        assertThatThrownBy(() -> RateLimitFilter.builder().config(config))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageStartingWith("allowlist.paths[1]: \"/api/**\" exempts every request of endpoints[0] (GET /api/scan), so its "
                        + "limit would never apply");
        // Nor may "/**" exempt the unmatched requests' limit, when no rule is there to be named.
        RateLimitConfig unmatchedOnly = RateLimitConfig.builder().tier("free").unmatched(Policy.fixedWindow(2, Duration.ofHours(1)))
                .allowlist(new Allowlist(List.of("/**"), List.of())).build();
        assertThatThrownBy(() -> RateLimitFilter.builder().config(unmatchedOnly))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageStartingWith("allowlist.paths[0]: \"/**\" exempts every request, so the limit of unmatched requests would never apply");
        // A path that exempts part of a rule's requests leaves the rest limited: accepted.
        RateLimitConfig partly = RateLimitConfig.builder()
                .endpoint(EndpointRule.of("GET", "/api/**", "api"))
                .limit("free", "api", Policy.tokenBucket(2, 1, Duration.ofSeconds(1)))
                .allowlist(new Allowlist(List.of("/api/status"), List.of())).build();
        RateLimitFilter.builder().config(partly);
    }

    @Test
    void allowlistedClientsByAddressBlockOrKeyAreNeverLimited() {
        RateLimitConfig config = twoEndpoints(false)
                .allowlist(new Allowlist(List.of(), List.of("10.0.0.0/8", "ip:2001:db8::1", "apikey:sk-internal")))
                .build();
        start(RateLimitFilter.builder().config(config).trustedProxies("127.0.0.0/8"));

        assertThat(server.statuses(5, 1, "GET", "/api/scan", "X-Forwarded-For", "10.9.8.7")).containsOnly(200);
        assertThat(server.statuses(5, 1, "GET", "/api/scan", "X-Forwarded-For", "2001:DB8:0::1")).containsOnly(200);
        assertThat(server.statuses(5, 1, "GET", "/api/scan", "X-API-Key", "sk-internal")).containsOnly(200);
        assertThat(events).isEmpty();
        assertThat(server.statuses(3, 1, "GET", "/api/scan", "X-Forwarded-For", "11.0.0.1")).containsExactly(200, 200, 429);
        assertThat(server.statuses(3, 1, "GET", "/api/scan", "X-API-Key", "sk-internal-not")).containsExactly(200, 200, 429);
    }

    @Test
    void anAllowlistedAddressMatchesACustomResolversIdHoweverItSpellsTheAddress() {
        RateLimitConfig config = twoEndpoints(false)
                .allowlist(new Allowlist(List.of(), List.of("ip:2001:db8:0:0:0:0:0:1", "2001:db8:5::/48")))
                .build();
        // As "ip:" + request.getRemoteAddr() would write it: Tomcat spells IPv6 in full, Jetty in brackets.
        start(RateLimitFilter.builder().config(config).clientIdResolver(request -> "ip:" + request.getHeader("X-Client-Address")));

        assertThat(server.statuses(4, 1, "GET", "/api/scan", "X-Client-Address", "2001:db8:0:0:0:0:0:1")).containsOnly(200);
        assertThat(server.statuses(4, 1, "GET", "/api/scan", "X-Client-Address", "[2001:db8::1]")).containsOnly(200);
        assertThat(server.statuses(4, 1, "GET", "/api/scan", "X-Client-Address", "[2001:db8:5::9]")).containsOnly(200);
        assertThat(server.statuses(3, 1, "GET", "/api/scan", "X-Client-Address", "[2001:db8:6::9]")).containsExactly(200, 200, 429);
    }

    @Test
    void anAllowlistEntryMaySpellTheAddressInBracketsAndNameTheUnknownPeer() {
        // "ip:[2001:db8::1]" as Jetty's getRemoteAddr() gives it; "ip:unknown", the id of a peer that is no IP literal.
        RateLimitConfig config = twoEndpoints(false)
                .allowlist(new Allowlist(List.of(), List.of("ip:[2001:db8::1]", "ip:unknown")))
                .build();
        start(RateLimitFilter.builder().config(config).clientIdResolver(request -> request.getHeader("X-Client")));

        assertThat(server.statuses(4, 1, "GET", "/api/scan", "X-Client", "ip:2001:db8::1")).containsOnly(200);
        assertThat(server.statuses(4, 1, "GET", "/api/scan", "X-Client", "ip:unknown")).containsOnly(200);
        assertThat(server.statuses(3, 1, "GET", "/api/scan", "X-Client", "ip:2001:db8::2")).containsExactly(200, 200, 429);
        // A typo after "ip:" is shown, like one without it: an address holds no secret.
        RateLimitConfig typo = twoEndpoints(false).allowlist(new Allowlist(List.of(), List.of("ip:10.0.0.300"))).build();
        assertThatThrownBy(() -> RateLimitFilter.builder().config(typo)).hasMessageEndingWith("was \"ip:10.0.0.300\"");
    }

    @Test
    void anAllowlistOfOnlyAnAddressBlockExemptsTheAddressesInIt() {
        RateLimitConfig config = twoEndpoints(false).allowlist(new Allowlist(List.of(), List.of("10.0.0.0/8"))).build();
        start(RateLimitFilter.builder().config(config).trustedProxies("127.0.0.0/8"));

        assertThat(server.statuses(4, 1, "GET", "/api/scan", "X-Forwarded-For", "10.9.8.7")).containsOnly(200);
        assertThat(server.statuses(3, 1, "GET", "/api/scan", "X-Forwarded-For", "11.0.0.1")).containsExactly(200, 200, 429);
    }

    @Test
    void anAddressAllowlistNeverExemptsAnIpIdThatIsNoAddress() {
        // ip:unknown (a peer on a Unix socket) or a custom resolver's ip:<anything> is no address inside any block.
        RateLimitConfig config = twoEndpoints(false).allowlist(new Allowlist(List.of(), List.of("0.0.0.0/0", "::/0"))).build();
        start(RateLimitFilter.builder().config(config).clientIdResolver(request -> request.getHeader("X-Client")));

        assertThat(server.statuses(3, 1, "GET", "/api/scan", "X-Client", "ip:unknown")).containsExactly(200, 200, 429);
        assertThat(server.statuses(3, 1, "GET", "/api/scan", "X-Client", "ip:gateway-7")).containsExactly(200, 200, 429);
        assertThat(server.statuses(3, 1, "GET", "/api/scan", "X-Client", "ip:10.0.0.1")).containsOnly(200);
    }

    @Test
    void anAllowlistOfOnlyOneAddressExemptsItHoweverACustomResolverSpellsIt() {
        RateLimitConfig config = twoEndpoints(false).allowlist(new Allowlist(List.of(), List.of("ip:2001:db8::1"))).build();
        start(RateLimitFilter.builder().config(config).clientIdResolver(request -> "ip:" + request.getHeader("X-Client-Address")));

        assertThat(server.statuses(4, 1, "GET", "/api/scan", "X-Client-Address", "2001:db8:0:0:0:0:0:1")).containsOnly(200);
        assertThat(server.statuses(3, 1, "GET", "/api/scan", "X-Client-Address", "2001:db8::2")).containsExactly(200, 200, 429);
    }

    @Test
    void anAllowlistedApiKeyMayHoldTheFirstAndLastVisibleAsciiCharacters() {
        RateLimitConfig config = twoEndpoints(false).allowlist(new Allowlist(List.of(), List.of("apikey:!sk~"))).build();
        start(RateLimitFilter.builder().config(config));

        assertThat(server.statuses(4, 1, "GET", "/api/scan", "X-API-Key", "!sk~")).containsOnly(200);
        assertThat(server.statuses(3, 1, "GET", "/api/scan", "X-API-Key", "!sk")).containsExactly(200, 200, 429);
    }

    @Test
    void aResolversOwnIdMayHoldASlash() {
        RateLimitConfig config = twoEndpoints(false).allowlist(new Allowlist(List.of(), List.of("team:ops/alice"))).build();
        start(RateLimitFilter.builder().config(config).clientIdResolver(request -> request.getHeader("X-Client")));

        assertThat(server.statuses(4, 1, "GET", "/api/scan", "X-Client", "team:ops/alice")).containsOnly(200);
        assertThat(server.statuses(3, 1, "GET", "/api/scan", "X-Client", "team:ops/bob")).containsExactly(200, 200, 429);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"::/129", ".10.0.0/8", ":10.0.0.0/8"})
    void aMistypedBlockStartingWithADotOrAColonIsShownInTheError(String entry) {
        // It is address-like, so it is shown (an address holds no secret) and read as a block, whose error says what is wrong.
        RateLimitConfig config = twoEndpoints(false).allowlist(new Allowlist(List.of(), List.of(entry))).build();

        assertThatThrownBy(() -> RateLimitFilter.builder().config(config))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageStartingWith("allowlist.clients[0]: ")
                .hasMessageContaining("\"" + entry + "\"")
                .hasMessageNotContaining("not shown");
    }

    @Test
    void anAllowlistedIpv6AddressStaysAllowlistedWhileTheRestOfItsNetworkIsLimited() {
        RateLimitConfig config = twoEndpoints(false)
                .allowlist(new Allowlist(List.of(), List.of("ip:2001:db8:1:2::7", "2001:db8:9::/48")))
                .build();
        start(RateLimitFilter.builder().config(config).trustedProxies("127.0.0.0/8"));

        // The allowlist sees the address, not the /64 the address is counted under.
        assertThat(server.statuses(3, 1, "GET", "/api/scan", "X-Forwarded-For", "2001:db8:1:2::1")).containsExactly(200, 200, 429);
        assertThat(server.statuses(5, 1, "GET", "/api/scan", "X-Forwarded-For", "2001:db8:1:2::7")).containsOnly(200);
        assertThat(server.statuses(5, 1, "GET", "/api/scan", "X-Forwarded-For", "2001:db8:9:5::1")).containsOnly(200);
        assertThat(events).hasSize(3);
    }

    @Test
    void noSpellingOfAPathDodgesItsRule() {
        start(RateLimitFilter.builder().config(twoEndpoints(false).build()));

        List<String> spellings = List.of("/api/scan/", "/api/./scan", "/api/x/../scan", "/api/%73can", "/api/scan;jsessionid=1");
        for (String spelling : spellings) {
            HttpResponse<String> response = server.get(spelling);
            assertThat(response.statusCode()).as(spelling).isIn(200, 429);
            assertThat(response.headers().firstValue("RateLimit-Policy")).as(spelling).hasValue("\"scan\";q=2;w=2");
        }
        assertThat(server.send("HEAD", "/api/scan").headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
        assertThat(events).hasSize(spellings.size() + 1).extracting(DecisionEvent::endpoint).containsOnly("scan");
    }

    @Test
    void anEncodedSemicolonNeitherClimbsOutOfALimitedPathNorIsTakenForAPathParameter() {
        RateLimitConfig config = RateLimitConfig.builder()
                .endpoint(EndpointRule.of("GET", "/api/scan", "scan"))
                .endpoint(EndpointRule.of("*", "/api/**", "api"))
                .limit("free", "scan", Policy.tokenBucket(2, 1, Duration.ofSeconds(1)))
                .limit("free", "api", Policy.fixedWindow(3, Duration.ofHours(1)))
                .allowlist(new Allowlist(List.of("/health"), List.of()))
                .build();
        start(RateLimitFilter.builder().config(config));

        // The container removes real path parameters before decoding: %3B reaches the application as a
        // literal ";", so "..;" is a segment of that name, not "..", and the request stays under /api.
        HttpResponse<String> climbing = server.get("/api/..%3B/x");
        assertThat(climbing.body()).isEqualTo("ok GET REQUEST /api/..;/x");
        assertThat(climbing.headers().firstValue("RateLimit-Policy")).hasValue("\"api\";q=3;w=3600");
        HttpResponse<String> toTheAllowlist = server.get("/api/x/..%3B/..%3B/health");
        assertThat(toTheAllowlist.body()).isEqualTo("ok GET REQUEST /api/x/..;/..;/health");
        assertThat(toTheAllowlist.headers().firstValue("RateLimit-Policy")).hasValue("\"api\";q=3;w=3600");
        // "scan;x" is another resource than "scan": it is not charged to scan.
        HttpResponse<String> other = server.get("/api/scan%3Bx");
        assertThat(other.body()).isEqualTo("ok GET REQUEST /api/scan;x");
        assertThat(other.headers().firstValue("RateLimit-Policy")).hasValue("\"api\";q=3;w=3600");
        assertThat(server.get("/api/..%3B/x").statusCode()).isEqualTo(429);
        assertThat(events).extracting(DecisionEvent::endpoint).containsExactly("api", "api", "api", "api");
    }

    @Test
    void aHeadRequestCountsAgainstTheGetRuleNotALaterCatchAll() {
        RateLimitConfig config = RateLimitConfig.builder()
                .endpoint(EndpointRule.of("GET", "/api/scan", "scan"))
                .endpoint(EndpointRule.of("*", "/api/**", "api"))
                .limit("free", "scan", Policy.tokenBucket(2, 1, Duration.ofSeconds(1)))
                .limit("free", "api", Policy.fixedWindow(100, Duration.ofMinutes(1)))
                .build();
        start(RateLimitFilter.builder().config(config));

        // The servlet answers HEAD with doGet: a HEAD scan is a scan, not a generic api call.
        assertThat(server.statuses(3, 1, "HEAD", "/api/scan")).containsExactly(200, 200, 429);
        assertThat(server.get("/api/scan").statusCode()).isEqualTo(429);
        assertThat(server.send("HEAD", "/api/other").statusCode()).isEqualTo(200);
        assertThat(events).extracting(DecisionEvent::endpoint).containsExactly("scan", "scan", "scan", "scan", "api");
    }
}
