package dev.ratelimit.servlet;

import dev.ratelimit.FailureMode;
import dev.ratelimit.InvalidConfigurationException;
import dev.ratelimit.ManualClock;
import dev.ratelimit.servlet.client.ClientIdResolver;
import dev.ratelimit.servlet.client.ForwardedHeader;
import dev.ratelimit.servlet.client.InvalidClientException;
import dev.ratelimit.servlet.client.TrustedProxies;
import dev.ratelimit.testing.ReadmeText;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Who a request is counted against, seen from outside: a client is the same client when its quota
 * is shared. The free scan bucket holds 10.
 */
class ClientIdentityTest {
    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00.250Z"));
    private TestServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private void start(RateLimitFilterBuilder builder) {
        server = TestServer.start(builder.clock(clock).build());
    }

    private void exhaustScan(String... headers) {
        assertThat(server.statuses(10, 4, "GET", "/api/scan", headers)).containsOnly(200);
        assertThat(server.get("/api/scan", headers).statusCode()).isEqualTo(429);
    }

    @Test
    void aResolverOfYourOwnFallsBackToTheForwardedAddressAsTheReadmeShows() throws IOException {
        // The test client's peer is 127.0.0.1: the README's proxy block 10.0.0.0/8 would never be trusted here.
        TrustedProxies ours = TrustedProxies.of(List.of("127.0.0.0/8"));
        // README:begin
        ClientIdResolver byAddress = ClientIdResolver.ip(TrustedProxies.of(List.of("10.0.0.0/8")), ForwardedHeader.X_FORWARDED_FOR);
        ClientIdResolver byUser = request -> request.getUserPrincipal() != null
                ? "user:" + request.getUserPrincipal().getName()
                : byAddress.resolve(request);
        RateLimitFilter filter = RateLimitFilter.builder().clientIdResolver(byUser).build();
        // README:end
        ReadmeText.assertShows("src/test/java/dev/ratelimit/servlet/ClientIdentityTest.java");
        filter.destroy();
        ClientIdResolver fromProxies = ClientIdResolver.ip(ours, ForwardedHeader.X_FORWARDED_FOR);
        start(RateLimitFilter.builder().clientIdResolver(request -> request.getHeader("X-User") != null
                ? "user:" + request.getHeader("X-User") : fromProxies.resolve(request)));

        exhaustScan("X-Forwarded-For", "203.0.113.7");

        assertThat(server.get("/api/scan", "X-Forwarded-For", "198.51.100.1, 203.0.113.7").statusCode())
                .as("the same client, whatever it put in front").isEqualTo(429);
        assertThat(server.get("/api/scan", "X-Forwarded-For", "203.0.113.8").statusCode()).isEqualTo(200);
        assertThat(server.get("/api/scan", "X-Forwarded-For", "203.0.113.7", "X-User", "ada").statusCode()).isEqualTo(200);
    }

    @Test
    void aForwardingHeaderFromAPeerNotTrustedIsWarnedOfOncePerPeerAsAProxyMissingFromTheTrustedOnes() throws IOException {
        start(RateLimitFilter.builder());
        assertThat(StderrLog.during(() -> server.get("/api/scan"))).doesNotContain("trusted-proxies");
        // A client reaching the application directly, writing the header itself, does not use the warning up.
        assertThat(StderrLog.during(() -> getFrom("127.0.0.2", "203.0.113.9")))
                .contains("a request from 127.0.0.2 carried X-Forwarded-For").contains("(said once for 127.0.0.2)");
        String first = StderrLog.during(() -> server.get("/api/scan", "X-Forwarded-For", "203.0.113.7"));
        assertThat(first).contains("RateLimitFilter: a request from 127.0.0.1 carried X-Forwarded-For, which is believed only"
                + " from trusted proxies, and was counted as 127.0.0.1; if that is your proxy's address, add it to trusted-proxies,"
                + " or every client behind the proxy shares its quota; if it is a client's, the client wrote the header, which was"
                + " ignored (said once for 127.0.0.1)");
        assertThat(StderrLog.during(() -> server.get("/api/scan", "X-Forwarded-For", "203.0.113.8"))).as("said once")
                .doesNotContain("trusted-proxies");
        server.close();

        // Trusted proxies that leave out the peer (an upstream seen from ::1, or another network): warned of too.
        start(RateLimitFilter.builder().trustedProxies("10.0.0.0/8", "::1"));
        assertThat(StderrLog.during(() -> server.get("/api/scan", "X-Forwarded-For", "203.0.113.7")))
                .contains("a request from 127.0.0.1 carried X-Forwarded-For");
        server.close();

        start(RateLimitFilter.builder().trustedProxies("127.0.0.1"));
        assertThat(StderrLog.during(() -> server.get("/api/scan", "X-Forwarded-For", "203.0.113.7")))
                .as("the peer is trusted").doesNotContain("trusted-proxies");
        server.close();

        // A header naming the peer itself: a local proxy, a container that took the address from it, or a client.
        start(RateLimitFilter.builder());
        assertThat(StderrLog.during(() -> server.get("/api/scan", "X-Forwarded-For", "127.0.0.1")))
                .contains("a request from 127.0.0.1 carried a forwarding header naming 127.0.0.1 itself: a proxy at that"
                        + " address missing from trusted-proxies (if it is your proxy's, add it,")
                .contains("or a client that wrote its own address (ignored) (said once for 127.0.0.1)");
    }

    /** GET /app/api/scan with {@code X-Forwarded-For: forwarded}, sent from the local address {@code from}. */
    private void getFrom(String from, String forwarded) {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", server.port(), java.net.InetAddress.getByName(from), 0)) {
            socket.getOutputStream().write(("GET /app/api/scan HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-For: " + forwarded
                    + "\r\nConnection: close\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            assertThat(new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII))
                    .startsWith("HTTP/1.1 200 ");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void clientIdResolverIpNamesAMissingArgument() {
        assertThatThrownBy(() -> ClientIdResolver.ip(null, ForwardedHeader.FORWARDED)).isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("trustedProxies");
        assertThatThrownBy(() -> ClientIdResolver.ip(TrustedProxies.none(), null)).isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("forwardedHeader");
    }

    @Test
    void ignoresASpoofedXForwardedForFromAnUntrustedPeer() {
        start(RateLimitFilter.builder());

        for (int i = 0; i < 10; i++) {
            assertThat(server.get("/api/scan", "X-Forwarded-For", "203.0.113." + i).statusCode()).isEqualTo(200);
        }
        // Eleven different claimed addresses, one real peer: the eleventh is refused.
        assertThat(server.get("/api/scan", "X-Forwarded-For", "198.51.100.77").statusCode()).isEqualTo(429);
    }

    @Test
    void honoursXForwardedForFromATrustedProxy() {
        start(RateLimitFilter.builder().trustedProxies("127.0.0.0/8"));

        exhaustScan("X-Forwarded-For", "203.0.113.7");

        assertThat(server.get("/api/scan", "X-Forwarded-For", "203.0.113.8").statusCode()).isEqualTo(200);
        assertThat(server.get("/api/scan").statusCode()).isEqualTo(200);   // the proxy itself
    }

    @Test
    void takesTheRightMostAddressThatIsNotATrustedProxy() {
        start(RateLimitFilter.builder().trustedProxies("127.0.0.0/8", "10.0.0.0/8"));

        exhaustScan("X-Forwarded-For", "203.0.113.7");

        // The client put 198.51.100.1 in front; the trusted 10.1.2.3 hop is skipped.
        assertThat(server.get("/api/scan", "X-Forwarded-For", "198.51.100.1, 203.0.113.7, 10.1.2.3").statusCode()).isEqualTo(429);
        assertThat(server.get("/api/scan", "X-Forwarded-For", "203.0.113.7, 198.51.100.1").statusCode()).isEqualTo(200);
    }

    @Test
    void fallsBackToThePeerWhenTheForwardingHeaderIsMalformed() {
        start(RateLimitFilter.builder().trustedProxies("127.0.0.0/8"));

        exhaustScan();   // the peer, 127.0.0.1

        assertThat(server.get("/api/scan", "X-Forwarded-For", "not-an-address").statusCode()).isEqualTo(429);
        assertThat(server.get("/api/scan", "X-Forwarded-For", "203.0.113.7,,").statusCode()).isEqualTo(429);
        assertThat(server.get("/api/scan", "X-Forwarded-For", "203.0.113.7, unknown").statusCode()).isEqualTo(429);
        assertThat(server.get("/api/scan", "X-Forwarded-For", "203.0.113.256").statusCode()).isEqualTo(429);
        assertThat(server.get("/api/scan", "X-Forwarded-For", "example.com").statusCode()).isEqualTo(429);
    }

    @Test
    void countsTheForwardedClientWhateverItWroteLeftOfItself() {
        start(RateLimitFilter.builder().trustedProxies("127.0.0.0/8"));

        exhaustScan("X-Forwarded-For", "203.0.113.7");

        // The proxy appended 203.0.113.7 to what the client sent: an empty entry or a long list in
        // front is the client's own writing and must not make it someone else (the proxy).
        assertThat(server.get("/api/scan", "X-Forwarded-For", ", 203.0.113.7").statusCode()).isEqualTo(429);
        assertThat(server.get("/api/scan", "X-Forwarded-For", "198.51.100.1, ".repeat(70) + "203.0.113.7").statusCode()).isEqualTo(429);
        assertThat(server.get("/api/scan").headers().firstValue("X-RateLimit-Remaining")).hasValue("9");   // the proxy itself
    }

    @Test
    void countsTheForwardedClientWhateverForwardedElementsItWroteLeftOfItself() {
        start(RateLimitFilter.builder().trustedProxies("127.0.0.0/8").forwardedHeader(ForwardedHeader.FORWARDED));

        exhaustScan("Forwarded", "for=203.0.113.7");

        assertThat(server.get("/api/scan", "Forwarded", "garbage, for=203.0.113.7").statusCode()).isEqualTo(429);
        assertThat(server.get("/api/scan", "Forwarded", "for=1.2.3.4;for=5.6.7.8, for=203.0.113.7").statusCode()).isEqualTo(429);
        assertThat(server.get("/api/scan", "Forwarded", ",for=203.0.113.7").statusCode()).isEqualTo(429);
        assertThat(server.get("/api/scan").headers().firstValue("X-RateLimit-Remaining")).hasValue("9");   // the proxy itself
    }

    @Test
    void countsTheForwardedClientWhateverUnclosedQuoteItWroteLeftOfItself() {
        start(RateLimitFilter.builder().trustedProxies("127.0.0.0/8").forwardedHeader(ForwardedHeader.FORWARDED));

        exhaustScan("Forwarded", "for=203.0.113.7");

        // The client sent 'for="198.51.100.1' and the proxy appended its element to the same line: the
        // client's open quote must not swallow the element the proxy wrote and make the client the proxy.
        assertThat(server.get("/api/scan", "Forwarded", "for=\"198.51.100.1, for=203.0.113.7").statusCode()).isEqualTo(429);
        assertThat(server.get("/api/scan", "Forwarded", "for=198.51.100.1;x=\", for=203.0.113.7;proto=https").statusCode()).isEqualTo(429);
        assertThat(server.get("/api/scan").headers().firstValue("X-RateLimit-Remaining")).hasValue("9");   // the proxy itself
    }

    @Test
    void readsTheForwardedHeaderWithQuotedIpv6AndNormalizesTheAddress() {
        start(RateLimitFilter.builder().trustedProxies("127.0.0.0/8").forwardedHeader(ForwardedHeader.FORWARDED));

        exhaustScan("Forwarded", "for=\"[2001:db8::1]:4711\";proto=https");

        // The same address in other spellings is the same client.
        assertThat(server.get("/api/scan", "Forwarded", "for=\"[2001:DB8:0:0:0:0:0:1]\"").statusCode()).isEqualTo(429);
        assertThat(server.get("/api/scan", "Forwarded", "for=198.51.100.1, for=\"[2001:db8::0001]\";by=127.0.0.1").statusCode()).isEqualTo(429);
        assertThat(server.get("/api/scan", "Forwarded", "for=\"[2001:db8:0:1::1]\"").statusCode()).isEqualTo(200);
        // With Forwarded configured, X-Forwarded-For is not read.
        assertThat(server.get("/api/scan", "X-Forwarded-For", "203.0.113.99").statusCode()).isEqualTo(200);
        assertThat(server.statuses(9, 1, "GET", "/api/scan", "X-Forwarded-For", "203.0.113.100")).containsOnly(200);
        assertThat(server.get("/api/scan", "X-Forwarded-For", "203.0.113.101").statusCode()).isEqualTo(429);
    }

    @Test
    void countsEveryAddressOfOneIpv6Slash64AsOneClient() {
        start(RateLimitFilter.builder().trustedProxies("127.0.0.0/8"));

        exhaustScan("X-Forwarded-For", "2001:db8:1:2::1");

        // Whoever has one address of a /64 can send from all 2^64: a new address is no new quota.
        assertThat(server.get("/api/scan", "X-Forwarded-For", "2001:db8:1:2:ffff:ffff:ffff:ffff").statusCode()).isEqualTo(429);
        assertThat(server.get("/api/scan", "X-Forwarded-For", "2001:db8:1:2:a:b:c:d").statusCode()).isEqualTo(429);
        assertThat(server.get("/api/scan", "X-Forwarded-For", "2001:db8:1:3::1").statusCode()).isEqualTo(200);
        // IPv4 clients are counted per address.
        exhaustScan("X-Forwarded-For", "203.0.113.7");
        assertThat(server.get("/api/scan", "X-Forwarded-For", "203.0.113.8").statusCode()).isEqualTo(200);
    }

    @Test
    void countsIpv6ClientsByTheConfiguredPrefixLength() {
        start(RateLimitFilter.builder().trustedProxies("127.0.0.0/8").ipv6PrefixLength(48));

        exhaustScan("X-Forwarded-For", "2001:db8:1:2::1");

        assertThat(server.get("/api/scan", "X-Forwarded-For", "2001:db8:1:ffff::1").statusCode()).isEqualTo(429);
        assertThat(server.get("/api/scan", "X-Forwarded-For", "2001:db8:2::1").statusCode()).isEqualTo(200);
    }

    @Test
    void countsEachIpv6AddressOnItsOwnWithPrefixLength128() {
        start(RateLimitFilter.builder().trustedProxies("127.0.0.0/8").ipv6PrefixLength(128));

        exhaustScan("X-Forwarded-For", "2001:db8:1:2::1");

        assertThat(server.get("/api/scan", "X-Forwarded-For", "2001:db8:1:2::2").statusCode()).isEqualTo(200);
    }

    /** A custom resolver that names the client by an address header its own front end writes, as it spells it. */
    private static RateLimitFilterBuilder customAddressResolver() {
        return RateLimitFilter.builder().clientIdResolver(request -> "ip:" + request.getHeader("X-Client-Address"));
    }

    @Test
    void countsACustomResolversBracketedIpv6IdByItsNetwork() {
        // Jetty spells an IPv6 peer bracketed: "ip:" + request.getRemoteAddr() is ip:[0:0:0:0:0:0:0:1].
        start(customAddressResolver());

        exhaustScan("X-Client-Address", "[2001:db8:1:2::1]");

        assertThat(server.get("/api/scan", "X-Client-Address", "[2001:db8:1:2::2]").statusCode()).isEqualTo(429);
        assertThat(server.get("/api/scan", "X-Client-Address", "2001:db8:1:2::3").statusCode()).isEqualTo(429);
        assertThat(server.get("/api/scan", "X-Client-Address", "[2001:db8:1:3::1]").statusCode()).isEqualTo(200);
    }

    @Test
    void countsACustomResolversIpv4MappedIdAsTheIpv4Address() {
        start(customAddressResolver());

        exhaustScan("X-Client-Address", "::ffff:192.0.2.1");

        assertThat(server.get("/api/scan", "X-Client-Address", "192.0.2.1").statusCode()).isEqualTo(429);
        assertThat(server.get("/api/scan", "X-Client-Address", "::FFFF:c000:201").statusCode()).isEqualTo(429);
        assertThat(server.get("/api/scan", "X-Client-Address", "192.0.2.2").statusCode()).isEqualTo(200);
    }

    @Test
    void countsEverySpellingOfACustomResolversIpv6AddressAsOneClientWithPrefixLength128() {
        start(customAddressResolver().ipv6PrefixLength(128));

        exhaustScan("X-Client-Address", "2001:db8::1");

        assertThat(server.get("/api/scan", "X-Client-Address", "2001:DB8:0:0::0001").statusCode()).isEqualTo(429);
        assertThat(server.get("/api/scan", "X-Client-Address", "[2001:db8::1]").statusCode()).isEqualTo(429);
        assertThat(server.get("/api/scan", "X-Client-Address", "2001:db8::2").statusCode()).isEqualTo(200);
    }

    @Test
    void countsAnIpv4MappedIpv6AddressAsTheIpv4Address() {
        start(RateLimitFilter.builder().trustedProxies("127.0.0.0/8"));

        exhaustScan("X-Forwarded-For", "192.0.2.1");

        assertThat(server.get("/api/scan", "X-Forwarded-For", "::ffff:192.0.2.1").statusCode()).isEqualTo(429);
        assertThat(server.get("/api/scan", "X-Forwarded-For", "[::ffff:c000:201]:80").statusCode()).isEqualTo(429);
    }

    @Test
    void countsEachApiKeySeparatelyWhateverTheAddress() {
        start(RateLimitFilter.builder().trustedProxies("127.0.0.0/8"));

        exhaustScan("X-API-Key", "sk-free-one");

        assertThat(server.get("/api/scan", "X-API-Key", "sk-free-one", "X-Forwarded-For", "203.0.113.5").statusCode()).isEqualTo(429);
        assertThat(server.get("/api/scan", "X-API-Key", "sk-free-two").statusCode()).isEqualTo(200);
        assertThat(server.get("/api/scan").statusCode()).isEqualTo(200);
    }

    @Test
    void withoutAVerifierAnInventedKeyGetsAQuotaOfItsOwn() {
        start(RateLimitFilter.builder());

        exhaustScan();

        // The filter cannot tell real keys from invented ones: each new key escapes the address's limit.
        assertThat(server.get("/api/scan", "X-API-Key", "invented-1").statusCode()).isEqualTo(200);
        assertThat(server.get("/api/scan", "X-API-Key", "invented-2").statusCode()).isEqualTo(200);
    }

    @Test
    void withAVerifierAnUnknownKeyIsCountedAsItsAddress() {
        start(RateLimitFilter.builder().apiKeyVerifier(Set.of("sk-pro-real")::contains));

        exhaustScan();

        // Invented keys, of a paid prefix or none, share the address's spent quota and its free tier.
        for (String invented : List.of("sk-ent-invented", "invented-1", "invented-2")) {
            HttpResponse<String> response = server.get("/api/scan", "X-API-Key", invented);
            assertThat(response.statusCode()).isEqualTo(429);
            assertThat(response.headers().firstValue("X-RateLimit-Tier")).hasValue("free");
        }
        // A real key from the same address is its own client, in its own tier.
        HttpResponse<String> real = server.get("/api/scan", "X-API-Key", "sk-pro-real");
        assertThat(real.statusCode()).isEqualTo(200);
        assertThat(real.headers().firstValue("X-RateLimit-Tier")).hasValue("pro");
        assertThat(real.headers().firstValue("X-RateLimit-Remaining")).hasValue("99");
    }

    @Test
    void aVerifierThatFailsIsHandledByTheFailureMode() {
        start(RateLimitFilter.builder().failureMode(FailureMode.FAIL_CLOSED).apiKeyVerifier(key -> {
            throw new IllegalStateException("the key store is down");
        }));

        assertThat(server.get("/api/scan", "X-API-Key", "sk-pro-real").statusCode()).isEqualTo(503);
        // Without a key the verifier is not asked.
        assertThat(server.get("/api/scan").statusCode()).isEqualTo(200);
    }

    @Test
    void aVerifierThrowingInvalidClientExceptionIsAFailureTooNotA400() {
        // Its Javadoc: whatever it throws is a failure to resolve the client, not the client's fault.
        start(RateLimitFilter.builder().apiKeyVerifier(key -> {
            throw new InvalidClientException("unknown_key", "nope");
        }));

        HttpResponse<String> response = server.get("/api/scan", "X-API-Key", "sk-pro-real");

        assertThat(response.statusCode()).as("fail-open passes it on").isEqualTo(200);
        assertThat(response.body()).doesNotContain("nope");
    }

    @Test
    void anInvalidClientExceptionWithoutCodeOrDetailIsStillA400WithBoth() {
        start(RateLimitFilter.builder().clientIdResolver(request -> {
            throw new InvalidClientException(null, null);
        }));

        HttpResponse<String> response = server.get("/api/scan");

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("\"error\":\"invalid_client\"")
                .contains("\"detail\":\"The request's client identity is not usable.\"");
    }

    @Test
    void readsTheApiKeyFromAConfiguredHeader() {
        start(RateLimitFilter.builder().apiKeyHeader("Authorization-Key"));

        HttpResponse<String> response = server.get("/api/scan", "Authorization-Key", "sk-ent-7");

        assertThat(response.headers().firstValue("X-RateLimit-Tier")).hasValue("enterprise");
        assertThat(server.get("/api/scan", "X-API-Key", "sk-ent-7").headers().firstValue("X-RateLimit-Tier")).hasValue("free");
    }

    @Test
    void withTheAuthorizationHeaderTheKeyIsTheBearerToken() {
        start(RateLimitFilter.builder().apiKeyHeader("Authorization"));

        assertThat(server.get("/api/scan", "Authorization", "Bearer sk-ent-7").headers().firstValue("X-RateLimit-Tier"))
                .hasValue("enterprise");
        // The scheme in any case, one or more spaces: one client, the token.
        exhaustScan("Authorization", "bearer  sk-free-one");
        assertThat(server.get("/api/scan", "Authorization", "BEARER sk-free-one").statusCode()).isEqualTo(429);
        assertThat(server.get("/api/scan", "Authorization", "Bearer sk-free-two").statusCode()).isEqualTo(200);
        assertThat(server.get("/api/scan").statusCode()).as("the address is another client").isEqualTo(200);
        assertThat(server.get("/api/scan", "Authorization", "sk-pro-raw").headers().firstValue("X-RateLimit-Tier"))
                .as("one word, no scheme: the key as it is, as before Bearer was read").hasValue("pro");
    }

    @Test
    void withTheAuthorizationHeaderAnotherSchemeIsNoKeySoTheAddressCounts() {
        start(RateLimitFilter.builder().apiKeyHeader("authorization"));

        exhaustScan();

        for (String credentials : List.of("Basic dXNlcjpwYXNzd29yZA==", "Bearer", "Bearer ", "Bearerish sk-ent-7", "Digest x=y")) {
            HttpResponse<String> response = server.get("/api/scan", "Authorization", credentials);
            assertThat(response.statusCode()).as(credentials).isEqualTo(429);
            assertThat(response.headers().firstValue("X-RateLimit-Tier")).as(credentials).hasValue("free");
        }
        assertThat(server.get("/api/scan", "Authorization", "Bearer a b").statusCode()).as("a malformed token").isEqualTo(400);
    }

    @Test
    void acceptsAnApiKeyWithTheFirstAndLastVisibleAsciiCharacters() {
        start(RateLimitFilter.builder());

        // '!' and '~' are the two ends of the characters a key may hold.
        HttpResponse<String> response = server.get("/api/scan", "X-API-Key", "sk-pro-!~");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("X-RateLimit-Tier")).hasValue("pro");
    }

    @Test
    void aMaximumKeyLengthOfOneAcceptsAOneCharacterKey() {
        start(RateLimitFilter.builder().maxApiKeyLength(1));

        assertThat(server.get("/api/scan", "X-API-Key", "k").headers().firstValue("X-RateLimit-Remaining")).hasValue("9");
        assertThat(server.get("/api/scan", "X-API-Key", "kk").statusCode()).isEqualTo(400);
    }

    @Test
    void theDefaultResolverWithoutAVerifierCountsEachKeyAndElseTheAddress() {
        start(RateLimitFilter.builder().clientIdResolver(
                ClientIdResolver.apiKeyOrIp("X-API-Key", 16, TrustedProxies.none(), ForwardedHeader.X_FORWARDED_FOR)));

        exhaustScan();

        assertThat(server.get("/api/scan", "X-API-Key", "invented-1").statusCode()).isEqualTo(200);
        assertThat(server.get("/api/scan", "X-API-Key", "sk-pro-" + "x".repeat(10)).statusCode()).isEqualTo(400);
    }

    @Test
    void refusesAnOverlongApiKeyWith400AndCountsItAgainstNoOne() {
        start(RateLimitFilter.builder().maxApiKeyLength(16));
        String tooLong = "sk-pro-" + "x".repeat(10);

        for (int i = 0; i < 20; i++) {
            HttpResponse<String> response = server.get("/api/scan", "X-API-Key", tooLong);
            assertThat(response.statusCode()).isEqualTo(400);
            assertThat(response.body()).doesNotContain(tooLong).contains("longer than 16 characters");
            assertThat(response.headers().firstValue("X-RateLimit-Remaining")).isEmpty();
        }
        assertThat(server.get("/api/scan").headers().firstValue("X-RateLimit-Remaining")).hasValue("9");
        assertThat(server.get("/api/scan", "X-API-Key", tooLong.substring(0, 16)).headers().firstValue("X-RateLimit-Remaining")).hasValue("99");
    }

    @Test
    void refusesAnApiKeyWithSpacesTabsOrNonAsciiWith400() {
        start(RateLimitFilter.builder());

        assertThat(server.get("/api/scan", "X-API-Key", "sk-pro-a b").statusCode()).isEqualTo(400);
        assertThat(server.get("/api/scan", "X-API-Key", "sk-pro-a\tb").statusCode()).isEqualTo(400);
        // HttpClient sends non-ASCII as '?': send the raw byte 0xE9 instead.
        String raw = server.raw("GET /app/api/scan HTTP/1.1\r\nHost: x\r\nX-API-Key: sk-pro-\u00e9\r\nConnection: close\r\n\r\n");
        assertThat(raw).startsWith("HTTP/1.1 400").contains("application/problem+json").contains("visible ASCII");
        assertThat(server.get("/api/scan").headers().firstValue("X-RateLimit-Remaining")).hasValue("9");
    }

    @Test
    void refusesTheApiKeyHeaderSentTwice() {
        start(RateLimitFilter.builder());

        HttpResponse<String> response = server.get("/api/scan", "X-API-Key", "sk-pro-a", "X-API-Key", "sk-ent-b");

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("at most once").doesNotContain("sk-pro-a").doesNotContain("sk-ent-b");
    }

    @Test
    void neverLetsControlCharactersInAHeaderBecomeA5xx() {
        start(RateLimitFilter.builder().trustedProxies("127.0.0.0/8"));

        String status = server.raw("GET /app/api/scan HTTP/1.1\r\nHost: x\r\nX-API-Key: sk-pro-\u0001\u007f\r\nConnection: close\r\n\r\n");
        String forwarded = server.raw("GET /app/api/scan HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 1.2.3.4\u0000\r\nConnection: close\r\n\r\n");

        // Jetty itself refuses these bytes with 400 before any filter sees them.
        assertThat(status).startsWith("HTTP/1.1 400");
        assertThat(forwarded).startsWith("HTTP/1.1 400");
    }
}
