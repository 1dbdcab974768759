package dev.ratelimit.servlet.client;

import org.junit.jupiter.api.Test;

import java.util.Collections;
import java.util.List;

import static dev.ratelimit.servlet.client.ForwardedHeader.FORWARDED;
import static dev.ratelimit.servlet.client.ForwardedHeader.X_FORWARDED_FOR;
import static org.assertj.core.api.Assertions.assertThat;

class ForwardedChainTest {
    private final TrustedProxies proxies = TrustedProxies.of(List.of("10.0.0.0/8", "2001:db8:ffff::/48"));

    private String client(String peer, ForwardedHeader header, String... values) {
        return ForwardedChain.clientAddress(peer, Collections.enumeration(List.of(values)), header, proxies);
    }

    @Test
    void ignoresTheHeaderFromAnUntrustedPeer() {
        assertThat(client("203.0.113.1", X_FORWARDED_FOR, "198.51.100.1")).isEqualTo("203.0.113.1");
        assertThat(ForwardedChain.clientAddress("10.0.0.1", null, X_FORWARDED_FOR, TrustedProxies.none())).isEqualTo("10.0.0.1");
    }

    @Test
    void takesTheRightMostUntrustedAddressAcrossHeaderLines() {
        assertThat(client("10.0.0.1", X_FORWARDED_FOR, "198.51.100.1, 203.0.113.5", "10.2.2.2")).isEqualTo("203.0.113.5");
        assertThat(client("10.0.0.1", X_FORWARDED_FOR, "198.51.100.1,203.0.113.5,10.2.2.2")).isEqualTo("203.0.113.5");
        assertThat(client("10.0.0.1", X_FORWARDED_FOR, "[2001:DB8::7]:443, 2001:db8:ffff::1")).isEqualTo("2001:db8::7");
    }

    @Test
    void takesTheLeftMostWhenEveryHopIsATrustedProxy() {
        assertThat(client("10.0.0.1", X_FORWARDED_FOR, "10.3.3.3, 10.2.2.2")).isEqualTo("10.3.3.3");
    }

    @Test
    void fallsBackToThePeerWhenAHopItMustReadIsMalformed() {
        assertThat(client("10.0.0.1", X_FORWARDED_FOR, "203.0.113.5, garbage")).isEqualTo("10.0.0.1");
        assertThat(client("10.0.0.1", X_FORWARDED_FOR, "203.0.113.5,")).isEqualTo("10.0.0.1");
        assertThat(client("10.0.0.1", X_FORWARDED_FOR, "")).isEqualTo("10.0.0.1");
        assertThat(client("10.0.0.1", X_FORWARDED_FOR, "10.1.1.1:99x")).isEqualTo("10.0.0.1");
        assertThat(client("10.0.0.1", X_FORWARDED_FOR, "1.1.1.1, " + "10.1.1.1, ".repeat(64) + "10.1.1.1")).isEqualTo("10.0.0.1");
        // Garbage left of the client is the client's own business.
        assertThat(client("10.0.0.1", X_FORWARDED_FOR, "garbage, 203.0.113.5")).isEqualTo("203.0.113.5");
    }

    @Test
    void findsTheClientBehindSixtyFourTrustedHopsAndNoMore() {
        // "More than 64 trusted hops" breaks the chain: exactly 64 does not.
        assertThat(client("10.0.0.1", X_FORWARDED_FOR, "203.0.113.5, " + "10.1.1.1, ".repeat(63) + "10.1.1.1")).isEqualTo("203.0.113.5");
        assertThat(client("10.0.0.1", X_FORWARDED_FOR, "10.3.3.3, " + "10.1.1.1, ".repeat(63) + "10.1.1.1")).isEqualTo("10.3.3.3");
        assertThat(client("10.0.0.1", X_FORWARDED_FOR, "203.0.113.5, " + "10.1.1.1, ".repeat(64) + "10.1.1.1")).isEqualTo("10.0.0.1");
    }

    @Test
    void readsOnlyTheHopsItMustSoThatTheClientsOwnEntriesCannotBreakTheChain() {
        assertThat(client("10.0.0.1", X_FORWARDED_FOR, ", 203.0.113.5")).isEqualTo("203.0.113.5");
        assertThat(client("10.0.0.1", X_FORWARDED_FOR, ",,", "203.0.113.5, 10.2.2.2")).isEqualTo("203.0.113.5");
        assertThat(client("10.0.0.1", X_FORWARDED_FOR, "1.1.1.1, ".repeat(70) + "203.0.113.5")).isEqualTo("203.0.113.5");
        assertThat(client("10.0.0.1", X_FORWARDED_FOR, "1.1.1.1, " + "10.1.1.1, ".repeat(62) + "10.1.1.1")).isEqualTo("1.1.1.1");
        assertThat(client("10.0.0.1", FORWARDED, "garbage, for=203.0.113.5")).isEqualTo("203.0.113.5");
        assertThat(client("10.0.0.1", FORWARDED, "for=1.1.1.1;for=2.2.2.2, for=\"203.0.113.5\";proto=https")).isEqualTo("203.0.113.5");
        assertThat(client("10.0.0.1", FORWARDED, "for=\"a,b\", for=203.0.113.5")).isEqualTo("203.0.113.5");
        assertThat(client("10.0.0.1", FORWARDED, "for=203.0.113.5, for=\"a,b\"")).isEqualTo("10.0.0.1");
        // A quote the client left open does not reach into the elements the proxies appended after it.
        assertThat(client("10.0.0.1", FORWARDED, "for=\"1.1.1.1, for=203.0.113.5")).isEqualTo("203.0.113.5");
        assertThat(client("10.0.0.1", FORWARDED, "for=1.1.1.1;x=\", for=\"[2001:db8::5]:80\", for=10.2.2.2")).isEqualTo("2001:db8::5");
    }

    @Test
    void readsRfc7239ForParameters() {
        assertThat(client("10.0.0.1", FORWARDED, "for=192.0.2.43, for=\"[2001:db8:cafe::17]:4711\";proto=https;by=10.0.0.1"))
                .isEqualTo("2001:db8:cafe::17");
        assertThat(client("10.0.0.1", FORWARDED, "For=\"192.0.2.60\";PROTO=http", "for=10.9.9.9")).isEqualTo("192.0.2.60");
        assertThat(client("10.0.0.1", FORWARDED, "proto=https;for=192.0.2.61")).isEqualTo("192.0.2.61");
        assertThat(client("10.0.0.1", FORWARDED, "for=\"192.0.2.\\62\"")).isEqualTo("192.0.2.62");
    }

    @Test
    void readsEachForwardedLineOnItsOwnAndAnEscapedQuoteInsideAQuotedValue() {
        // Two lines of two elements each: the walk sees 198.51.100.1, 203.0.113.5, 10.3.3.3, 10.2.2.2.
        assertThat(client("10.0.0.1", FORWARDED, "for=198.51.100.1, for=203.0.113.5", "for=10.3.3.3, for=10.2.2.2"))
                .isEqualTo("203.0.113.5");
        // \" inside a quoted value neither ends the string nor lets its comma split the element.
        assertThat(client("10.0.0.1", FORWARDED, "for=1.1.1.1, for=\"[2001:db8::5]:80\";x=\"a\\\",b\"")).isEqualTo("2001:db8::5");
    }

    @Test
    void fallsBackToThePeerOnAMalformedOrUnknownForwardedElement() {
        assertThat(client("10.0.0.1", FORWARDED, "for=unknown")).isEqualTo("10.0.0.1");
        assertThat(client("10.0.0.1", FORWARDED, "for=_hidden")).isEqualTo("10.0.0.1");
        assertThat(client("10.0.0.1", FORWARDED, "for=\"[2001:db8::1]:4711")).isEqualTo("10.0.0.1");
        assertThat(client("10.0.0.1", FORWARDED, "for=1.2.3.4;for=5.6.7.8")).isEqualTo("10.0.0.1");
        assertThat(client("10.0.0.1", FORWARDED, "for 1.2.3.4")).isEqualTo("10.0.0.1");
        assertThat(client("10.0.0.1", FORWARDED, "for=1.2.3.4, proto=https")).isEqualTo("10.0.0.1");
        assertThat(client("10.0.0.1", FORWARDED, "for=[2001:db8::1]")).isEqualTo("10.0.0.1");
    }

    @Test
    void readsNodesWithPortsAndBrackets() {
        assertThat(ForwardedChain.nodeAddress("192.0.2.1:8080")).containsExactly(192, 0, 2, 1);
        assertThat(IpAddresses.format(ForwardedChain.nodeAddress("[2001:db8::1]:4711"))).isEqualTo("2001:db8::1");
        assertThat(IpAddresses.format(ForwardedChain.nodeAddress("[2001:db8::1]"))).isEqualTo("2001:db8::1");
        assertThat(IpAddresses.format(ForwardedChain.nodeAddress("2001:db8::1"))).isEqualTo("2001:db8::1");
        assertThat(ForwardedChain.nodeAddress("[192.0.2.1]")).isNull();
        assertThat(ForwardedChain.nodeAddress("[2001:db8::1]:")).isNull();
        assertThat(ForwardedChain.nodeAddress("[2001:db8::1]:123456")).isNull();
        assertThat(ForwardedChain.nodeAddress("192.0.2.1:")).isNull();
    }

    @Test
    void readsPortsOfOneToFiveDigitsWhateverTheDigits() {
        assertThat(client("10.0.0.1", X_FORWARDED_FOR, "203.0.113.5:9")).isEqualTo("203.0.113.5");
        assertThat(client("10.0.0.1", X_FORWARDED_FOR, "203.0.113.5:65535")).isEqualTo("203.0.113.5");
        assertThat(client("10.0.0.1", X_FORWARDED_FOR, "[2001:db8::5]:0")).isEqualTo("2001:db8::5");
        assertThat(client("10.0.0.1", X_FORWARDED_FOR, "[2001:db8::5]:12345")).isEqualTo("2001:db8::5");
        assertThat(client("10.0.0.1", X_FORWARDED_FOR, "[2001:db8::5]:123456")).isEqualTo("10.0.0.1");
        assertThat(client("10.0.0.1", X_FORWARDED_FOR, "203.0.113.5:/")).isEqualTo("10.0.0.1");
        assertThat(client("10.0.0.1", X_FORWARDED_FOR, "203.0.113.5::")).isEqualTo("10.0.0.1");
    }

    @Test
    void readsTokensWithEveryLetterAndDigitAtTheEndsOfTheirRanges() {
        // a, z, A, Z, 0 and 9: the first and last characters of each tchar range, in names and values.
        assertThat(client("10.0.0.1", FORWARDED, "a=z;Z=A;for=190.0.0.9")).isEqualTo("190.0.0.9");
        assertThat(client("10.0.0.1", FORWARDED, "z=a;A=Z;for=190.0.0.9")).isEqualTo("190.0.0.9");
    }

    @Test
    void anElementCutShortAtTheEndOfTheLineIsMalformedRatherThanAnError() {
        // Each would read past the end of the line if a bound were off by one.
        assertThat(client("10.0.0.1", FORWARDED, "for=203.0.113.5, proto")).isEqualTo("10.0.0.1");
        assertThat(client("10.0.0.1", FORWARDED, "for=203.0.113.5, for=")).isEqualTo("10.0.0.1");
        // An open quote makes the whole line one element, so these are lines of their own.
        assertThat(client("10.0.0.1", FORWARDED, "for=\"1.2.3.4\\")).isEqualTo("10.0.0.1");
        assertThat(client("10.0.0.1", FORWARDED, "for=\"")).isEqualTo("10.0.0.1");
        assertThat(client("10.0.0.1", FORWARDED, "for=203.0.113.5;")).isEqualTo("10.0.0.1");
    }

    @Test
    void aQuotedCommaInsideATrustedHopsElementDoesNotSplitIt() {
        assertThat(client("10.0.0.1", FORWARDED, "for=203.0.113.5, for=10.2.2.2;x=\"a,b\"")).isEqualTo("203.0.113.5");
    }

    @Test
    void readsBracketedAndNonLiteralPeers() {
        assertThat(ForwardedChain.clientAddress("[::1]", null, X_FORWARDED_FOR, proxies)).isEqualTo("::1");
        assertThat(ForwardedChain.clientAddress("0:0:0:0:0:0:0:1", null, X_FORWARDED_FOR, proxies)).isEqualTo("::1");
        assertThat(ForwardedChain.clientAddress("unix:/tmp/socket", null, X_FORWARDED_FOR, proxies)).isNull();
    }
}
