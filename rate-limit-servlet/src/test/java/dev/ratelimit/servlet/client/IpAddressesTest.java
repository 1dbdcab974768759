package dev.ratelimit.servlet.client;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

class IpAddressesTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
            "203.0.113.7,                             203.0.113.7",
            "0.0.0.0,                                 0.0.0.0",
            "255.255.255.255,                         255.255.255.255",
            "2001:0DB8:0000:0000:0000:0000:0000:0001, 2001:db8::1",
            "2001:db8:0:0:1:0:0:1,                    2001:db8::1:0:0:1",
            "2001:db8:0:1:1:1:1:1,                    2001:db8:0:1:1:1:1:1",
            "2001:0:0:1:0:0:0:1,                      2001:0:0:1::1",
            "::,                                      ::",
            "::1,                                     ::1",
            "1::,                                     1::",
            "1:2:3:4:5:6:7::,                         1:2:3:4:5:6:7:0",
            "fe80::1%eth0,                            fe80::1",
            "FE80::ABCD%25,                           fe80::abcd",
            "::ffff:192.0.2.1,                        192.0.2.1",
            "::FFFF:c000:0201,                        192.0.2.1",
            "0:0:0:0:0:ffff:7f00:1,                   127.0.0.1",
            "::192.0.2.1,                             ::c000:201",
            "64:ff9b::192.0.2.33,                     64:ff9b::c000:221",
            "1:2:3:4:5:6:192.0.2.1,                   1:2:3:4:5:6:c000:201",
            "fe80::1%09azAZ.-_,                       fe80::1",
    })
    void printsTheCanonicalForm(String literal, String canonical) {
        assertThat(IpAddresses.normalize(literal)).isEqualTo(canonical);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "1.2.3", "1.2.3.4.5", "01.2.3.4", "1.2.3.04", "256.1.1.1", "1.2.3.4 ", " 1.2.3.4", "1.2.3.-1",
            "localhost", "example.com", "1::2::3", ":1", "1:", ":::", "12345::", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7:8::",
            "::ffff:1.2.3", "::1.2.3.4:1", "[::1]", "fe80::1%", "fe80::1%et h", "\u0663.1.1.1", "::g", "0x7f.0.0.1", "1.2.3.4/8",
            "1:2:3:4:5:6:7:1.2.3.4", "::1::2", "::1:2::", "fe80::1%/", "fe80::1%:", "fe80::1%`", "fe80::1%{", "fe80::1%@", "fe80::1%["})
    void refusesAnythingButALiteral(String text) {
        assertThat(IpAddresses.parse(text)).isNull();
        assertThat(IpAddresses.normalize(text)).isNull();
    }

    @Test
    void answersNotAnAddressForNull() {
        assertThat(IpAddresses.parse(null)).isNull();
        assertThat(IpAddresses.normalize(null)).isNull();
    }

    @Test
    void readsLiteralsOfUpTo64Characters() {
        String longest = "fe80::1%" + "z".repeat(56);

        assertThat(longest).hasSize(64);
        assertThat(IpAddresses.normalize(longest)).isEqualTo("fe80::1");
        assertThat(IpAddresses.parse(longest + "z")).isNull();
    }

    @Test
    void printsAnIpv4MappedAddressAsItsIpv4Address() {
        byte[] mapped = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, (byte) 192, 0, 2, 1};

        assertThat(IpAddresses.format(mapped)).isEqualTo("192.0.2.1");
    }

    @Property(tries = 500)
    void printsEveryIpv6AddressSoThatTheJdkReadsBackTheSameBytes(@ForAll @Size(16) byte[] address) throws UnknownHostException {
        String text = IpAddresses.format(address);

        // Safe: text is a literal we printed, so the JDK does no lookup.
        byte[] jdk = InetAddress.getByName(text).getAddress();
        byte[] expected = IpAddresses.unmapped(address);
        assertThat(jdk).isEqualTo(expected);
        assertThat(IpAddresses.parse(text)).isEqualTo(expected);
        assertThat(text).doesNotContain(":0:0:").matches("[0-9a-f:.]+");
    }

    @Property(tries = 300)
    void readsTheJdksFullFormOfEveryIpv6Address(@ForAll @Size(16) byte[] address) throws UnknownHostException {
        String full = Inet6Address.getByAddress(null, address, null).getHostAddress();

        assertThat(IpAddresses.parse(full)).isEqualTo(IpAddresses.unmapped(address));
    }

    @Property(tries = 300)
    void readsBackEveryIpv4Address(@ForAll @Size(4) byte[] address) {
        String text = IpAddresses.format(address);

        assertThat(IpAddresses.parse(text)).isEqualTo(address);
        assertThat(IpAddresses.parse("::ffff:" + text)).isEqualTo(address);
        assertThat(Arrays.equals(IpAddresses.parse("::" + text), address)).isFalse();
    }
}
