package dev.ratelimit.servlet;

import dev.ratelimit.InvalidConfigurationException;
import dev.ratelimit.servlet.client.Cidr;
import dev.ratelimit.servlet.client.IpAddresses;

/**
 * The id a client's quota is counted under: a client identified by an IPv6 address
 * ({@code ip:2001:db8:1:2:a:b:c:d}) is counted by its network, the address's first
 * {@code prefixLength} bits ({@code ip:2001:db8:1:2::/64}); every other id counts as it is.
 *
 * <p>Whoever is given an IPv6 network can send from any address in it, and is usually given a whole
 * /64 at least (a home or office line, a phone, a cloud VM): counted per address, one client could
 * take a fresh quota with every request. IPv4 addresses are scarce and count one by one, as do
 * prefix length 128 and ids that are not an IPv6 literal after {@code ip:} (a custom resolver's own).
 */
final class Ipv6Networks {
    /** The default prefix length: the network one subscriber, office or VM is given at least. */
    static final int DEFAULT_PREFIX_LENGTH = 64;
    /** The shortest prefix accepted: anything shorter would count whole providers as one client. */
    static final int MIN_PREFIX_LENGTH = 32;

    private final int prefixLength;

    /**
     * @throws InvalidConfigurationException naming {@code ipv6PrefixLength} unless it is 32 to 128
     */
    Ipv6Networks(int prefixLength) {
        if (prefixLength < MIN_PREFIX_LENGTH || prefixLength > 128) {
            throw new InvalidConfigurationException("ipv6PrefixLength", "must be " + MIN_PREFIX_LENGTH + "-128, was " + prefixLength);
        }
        this.prefixLength = prefixLength;
    }

    /** The id {@code clientId}'s quota is counted under (see the class documentation). */
    String countedId(String clientId) {
        // IPv4 ids, ip:unknown and apikey: ids have no ':' after the "ip:": no parsing on their path.
        if (prefixLength == 128 || !clientId.startsWith("ip:") || clientId.indexOf(':', 3) < 0) {
            return clientId;
        }
        byte[] address = IpAddresses.parse(clientId.substring(3));
        if (address == null || address.length != 16) {
            return clientId;
        }
        return "ip:" + Cidr.containing(address, prefixLength);
    }

    @Override
    public String toString() {
        return "ipv6PrefixLength=" + prefixLength;
    }
}
