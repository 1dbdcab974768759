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
 * IPv6 addresses with prefix length 128; every spelling of one address (upper case, leading zeros, a
 * zone id, brackets, IPv4-mapped) counts under one canonical id. Ids that are not an IP literal after
 * {@code ip:} (a custom resolver's own) count as they are.
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
        if (!clientId.startsWith("ip:") || clientId.indexOf(':', 3) < 0) {
            return clientId;
        }
        // A custom resolver's "ip:" + request.getRemoteAddr() is bracketed on Jetty: ip:[2001:db8::1].
        byte[] address = IpAddresses.parseClientAddress(clientId.substring(3));
        if (address == null) {
            return clientId;
        }
        // Every spelling of one address counts as one: an IPv4-mapped address as its IPv4 address,
        // an IPv6 address (at 128) in its canonical form.
        if (address.length == 4 || prefixLength == 128) {
            return "ip:" + IpAddresses.format(address);
        }
        return "ip:" + Cidr.containing(address, prefixLength);
    }

    @Override
    public String toString() {
        return "ipv6PrefixLength=" + prefixLength;
    }
}
