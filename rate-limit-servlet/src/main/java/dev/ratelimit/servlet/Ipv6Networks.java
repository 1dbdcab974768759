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
 * IPv6 addresses with prefix length 128 and IPv6 addresses that carry one IPv4 client through a
 * translator (NAT64's {@code 64:ff9b::/96}, SIIT's {@code ::ffff:0:0:0/96}); every spelling of one address
 * (upper case, leading zeros, a zone id, brackets, IPv4-mapped) counts under one canonical id. Ids that are not an IP literal after
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
        if (address.length == 4 || prefixLength == 128 || embedsIpv4(address)) {
            return "ip:" + IpAddresses.format(address);
        }
        return "ip:" + Cidr.containing(address, prefixLength);
    }

    /**
     * Whether {@code address} (16 bytes) is an IPv4 client seen through a translator: the NAT64 well-known
     * prefix {@code 64:ff9b::/96} (RFC 6052, as an IPv6-only service behind SIIT sees every IPv4 user)
     * or an IPv4-translated {@code ::ffff:0:0:0/96} (RFC 2765; {@code ::ffff:0:0/96} is IPv4-mapped, read as IPv4). Its last 32 bits are one IPv4 client, so
     * it counts alone: by its /64, every IPv4 user would share one quota. (Not read as the IPv4 address
     * itself: an IPv6 sender could pick such a source to pass for a trusted IPv4 proxy.)
     */
    private static boolean embedsIpv4(byte[] address) {
        boolean nat64 = address[0] == 0 && address[1] == 0x64 && address[2] == (byte) 0xff && address[3] == (byte) 0x9b;
        boolean translated = address[8] == (byte) 0xff && address[9] == (byte) 0xff;
        int zerosFrom = nat64 ? 4 : 0;
        int zerosTo = nat64 ? 12 : 8;
        for (int i = zerosFrom; i < zerosTo; i++) {
            if (address[i] != 0) {
                return false;
            }
        }
        return nat64 || translated && address[10] == 0 && address[11] == 0;
    }

    @Override
    public String toString() {
        return "ipv6PrefixLength=" + prefixLength;
    }
}
