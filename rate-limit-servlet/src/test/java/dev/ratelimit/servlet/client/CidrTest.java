package dev.ratelimit.servlet.client;

import dev.ratelimit.InvalidConfigurationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CidrTest {

    @ParameterizedTest(name = "{0} contains {1}: {2}")
    @CsvSource({
            "10.0.0.0/8,       10.0.0.0,        true",
            "10.0.0.0/8,       10.255.255.255,  true",
            "10.0.0.0/8,       11.0.0.0,        false",
            "10.0.0.0/8,       9.255.255.255,   false",
            "192.168.1.64/26,  192.168.1.127,   true",
            "192.168.1.64/26,  192.168.1.128,   false",
            "192.168.1.64/26,  192.168.1.63,    false",
            "127.0.0.1,        127.0.0.1,       true",
            "127.0.0.1,        127.0.0.2,       false",
            "0.0.0.0/0,        203.0.113.7,     true",
            "0.0.0.0/0,        2001:db8::1,     false",
            "2001:db8::/32,    2001:db8:ffff::1, true",
            "2001:db8::/32,    2001:db9::1,     false",
            "::/0,             ::1,             true",
            "10.1.2.3/8,       10.9.9.9,        true",
            "::ffff:10.0.0.0/104, 10.20.30.40,  true",
            "::ffff:10.0.0.0/104, 11.0.0.1,     false",
            "10.0.0.0/8,       ::ffff:10.0.0.1, true",
            "10.0.0.7/32,      10.0.0.7,        true",
            "10.0.0.7/32,      10.0.0.6,        false",
            "2001:db8::7/128,  2001:db8::7,     true",
            "2001:db8::7/128,  2001:db8::6,     false",
            "::ffff:0.0.0.0/96, 203.0.113.7,    true",
            "::ffff:0.0.0.0/96, 2001:db8::1,    false",
            "::ffff:10.0.0.7/128, 10.0.0.7,     true",
            "::ffff:10.0.0.7/128, 10.0.0.6,     false",
    })
    void containsExactlyTheAddressesOfItsPrefix(String cidr, String address, boolean inside) {
        assertThat(Cidr.parse(cidr).contains(IpAddresses.parse(address))).isEqualTo(inside);
    }

    @Test
    void printsTheNetworkWithoutHostBits() {
        assertThat(Cidr.parse("10.1.2.3/8")).hasToString("10.0.0.0/8").isEqualTo(Cidr.parse("10.0.0.0/8"));
        assertThat(Cidr.parse("2001:DB8::1/32")).hasToString("2001:db8::/32");
        assertThat(Cidr.parse("::ffff:10.0.0.0/104")).hasToString("10.0.0.0/8");
        assertThat(Cidr.parse("10.0.0.0/8")).isNotEqualTo(Cidr.parse("10.0.0.0/16")).isNotEqualTo(Cidr.parse("11.0.0.0/8"));
    }

    @Test
    void theBlockContainingAnAddressKeepsOnlyItsPrefixBits() {
        assertThat(Cidr.containing(IpAddresses.parse("2001:db8:1:2:a:b:c:d"), 64)).hasToString("2001:db8:1:2::/64")
                .isEqualTo(Cidr.parse("2001:db8:1:2::/64"));
        assertThat(Cidr.containing(IpAddresses.parse("2001:db8:1:2ff::1"), 60)).hasToString("2001:db8:1:2f0::/60");
        assertThat(Cidr.containing(IpAddresses.parse("203.0.113.77"), 24)).hasToString("203.0.113.0/24");
        assertThatThrownBy(() -> Cidr.containing(IpAddresses.parse("203.0.113.77"), 33)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Cidr.containing(new byte[5], 8)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Cidr.containing(IpAddresses.parse("2001:db8::1"), 129))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("prefix length must be 0-128, was 129");
        assertThatThrownBy(() -> Cidr.containing(IpAddresses.parse("203.0.113.77"), -1)).hasMessage("prefix length must be 0-32, was -1");
    }

    @Test
    void theBlockContainingAnAddressMayHaveAnyPrefixFromNoneToAll() {
        assertThat(Cidr.containing(IpAddresses.parse("203.0.113.77"), 0)).hasToString("0.0.0.0/0");
        assertThat(Cidr.containing(IpAddresses.parse("203.0.113.77"), 32)).hasToString("203.0.113.77/32");
        assertThat(Cidr.containing(IpAddresses.parse("2001:db8::1"), 128)).hasToString("2001:db8::1/128");
    }

    @Test
    void refusesWhatIsNotABlockNamingTheText() {
        assertThatThrownBy(() -> Cidr.parse("10.0.0.0/33")).isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("cidr: prefix length must be 0-32, was \"10.0.0.0/33\"");
        assertThatThrownBy(() -> Cidr.parse("2001:db8::/129")).hasMessageContaining("prefix length must be 0-128");
        assertThatThrownBy(() -> Cidr.parse("10.0.0.0/-1")).hasMessageContaining("prefix length");
        assertThatThrownBy(() -> Cidr.parse("10.0.0.0/")).hasMessageContaining("prefix length");
        assertThatThrownBy(() -> Cidr.parse("::ffff:10.0.0.0/8")).hasMessageContaining("prefix length must be 96-128");
        assertThatThrownBy(() -> Cidr.parse("localhost/8"))
                .hasMessage("cidr: must be an IP address or CIDR block such as 10.0.0.0/8 or 2001:db8::/32, was \"localhost/8\"");
        assertThatThrownBy(() -> Cidr.parse(null)).hasMessageContaining("was \"null\"");
        assertThatThrownBy(() -> Cidr.parse("::ffff:10.0.0.0/95")).hasMessageContaining("prefix length must be 96-128, was");
        assertThatThrownBy(() -> Cidr.parse("::ffff:10.0.0.0/129")).hasMessageContaining("prefix length must be 96-128, was");
    }

    @Test
    void namesTextOfUpTo80CharactersWholeAndCutsLongerText() {
        String eighty = "x".repeat(80);

        assertThatThrownBy(() -> Cidr.parse(eighty)).hasMessageEndingWith("was \"" + eighty + "\"");
        assertThatThrownBy(() -> Cidr.parse(eighty + "y")).hasMessageEndingWith("was \"" + eighty + "...\"");
    }

    @Test
    void aListTypedIntoOneEntryIsRefusedAsAListNotAsABadPrefixLength() {
        assertThatThrownBy(() -> Cidr.parse("10.0.0.0/8, 10.1.0.0/16")).isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("cidr: must be one IP address or CIDR block per entry, was \"10.0.0.0/8, 10.1.0.0/16\""
                        + " (a list? give each block as its own entry)");
        assertThatThrownBy(() -> Cidr.parse("10.0.0.1 10.0.0.2")).hasMessageContaining("one IP address or CIDR block per entry");
        assertThat(Cidr.parse(" 10.0.0.0/8 ")).hasToString("10.0.0.0/8");
    }
}
