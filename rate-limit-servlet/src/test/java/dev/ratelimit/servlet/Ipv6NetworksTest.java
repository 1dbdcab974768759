package dev.ratelimit.servlet;

import dev.ratelimit.InvalidConfigurationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class Ipv6NetworksTest {

    @ParameterizedTest(name = "/{0}: {1} -> {2}")
    @CsvSource({
            "64,  ip:2001:db8:1:2:a:b:c:d,              ip:2001:db8:1:2::/64",
            "64,  ip:2001:db8:1:2:ffff:ffff:ffff:ffff,  ip:2001:db8:1:2::/64",
            "64,  ip:2001:DB8:0001:0002::7,             ip:2001:db8:1:2::/64",
            "64,  ip:fe80::1%eth0,                      ip:fe80::/64",
            "64,  ip:::1,                               ip:::/64",
            "56,  ip:2001:db8:1:2ff:a::1,               ip:2001:db8:1:200::/56",
            "48,  ip:2001:db8:1:2:a:b:c:d,              ip:2001:db8:1::/48",
            "32,  ip:2001:db8:1:2:a:b:c:d,              ip:2001:db8::/32",
            "127, ip:2001:db8::3,                       ip:2001:db8::2/127",
            "128, ip:2001:db8::3,                       ip:2001:db8::3",
            "64,  ip:[2001:db8:1:2::a],                 ip:2001:db8:1:2::/64",
            "64,  ip:[0:0:0:0:0:0:0:1],                 ip:::/64",
            "60,  ip:[2001:DB8:1:2f::1%eth0],           ip:2001:db8:1:20::/60",
            "128, ip:2001:DB8:0:0::0001,                ip:2001:db8::1",
            "128, ip:[2001:db8::1],                     ip:2001:db8::1",
            "128, ip:fe80::1%eth0,                      ip:fe80::1",
    })
    void countsEverySpellingOfAnIpv6ClientUnderItsNetwork(int prefix, String clientId, String counted) {
        assertThat(new Ipv6Networks(prefix).countedId(clientId)).isEqualTo(counted);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "ip:203.0.113.7",
            "ip:unknown",
            "apikey:sk-pro-2001:db8::1",
            "user:2001:db8::1",
            "ip:2001:db8::/48",
            "ip:not:an:address",
            "ip:",
    })
    void leavesEveryOtherIdAsItIs(String clientId) {
        assertThat(new Ipv6Networks(64).countedId(clientId)).isSameAs(clientId);
    }

    @Test
    void countsAnIpv4MappedAddressAsItsIpv4AddressNotAsANetwork() {
        // A custom resolver may hand over the container's spelling of an IPv4 client on a dual-stack socket.
        assertThat(new Ipv6Networks(64).countedId("ip:::ffff:192.0.2.1")).isEqualTo("ip:192.0.2.1");
        assertThat(new Ipv6Networks(64).countedId("ip:::FFFF:c000:201")).isEqualTo("ip:192.0.2.1");
        assertThat(new Ipv6Networks(128).countedId("ip:::ffff:192.0.2.1")).isEqualTo("ip:192.0.2.1");
    }

    @Test
    void countsEachIpv4ClientSeenThroughATranslatorAloneNotAllUnderOneNetwork() {
        // An IPv6-only service behind SIIT/NAT64 sees every IPv4 user as 64:ff9b::<IPv4>: one /64 for all.
        Ipv6Networks networks = new Ipv6Networks(64);
        assertThat(networks.countedId("ip:64:ff9b::1.2.3.4")).isEqualTo("ip:64:ff9b::102:304");
        assertThat(networks.countedId("ip:64:ff9b::5.6.7.8")).isEqualTo("ip:64:ff9b::506:708");
        assertThat(networks.countedId("ip:::ffff:0:1.2.3.4")).isEqualTo("ip:::ffff:0:102:304");
        assertThat(networks.countedId("ip:::ffff:0:9.9.9.9")).isEqualTo("ip:::ffff:0:909:909");
        // Only those prefixes: another address in 64:ff9b::/64, or with more bits set, is a network as usual.
        assertThat(networks.countedId("ip:64:ff9b::1:0:102:304")).isEqualTo("ip:64:ff9b::/64");
        assertThat(networks.countedId("ip:::ffff:1:102:304")).isEqualTo("ip:::/64");
    }

    @Test
    void leavesAnOverlongOrBrokenIpIdAsItIsWithoutThrowing() {
        String overlong = "ip:" + "2001:db8::1".repeat(1000);
        assertThat(new Ipv6Networks(64).countedId(overlong)).isSameAs(overlong);
        assertThat(new Ipv6Networks(64).countedId("ip:[]")).isEqualTo("ip:[]");
        assertThat(new Ipv6Networks(64).countedId("ip:[::1")).isEqualTo("ip:[::1");
        assertThat(new Ipv6Networks(128).countedId("ip:[:]")).isEqualTo("ip:[:]");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"31", "0", "-1", "129"})
    void refusesAPrefixLengthOutside32To128NamingTheOption(int prefix) {
        assertThatThrownBy(() -> new Ipv6Networks(prefix))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("ipv6PrefixLength: must be 32-128, was " + prefix);
    }
}
