package dev.ratelimit.servlet.client;

import dev.ratelimit.InvalidConfigurationException;

import java.util.Arrays;

/**
 * A block of IP addresses in CIDR notation: {@code 10.0.0.0/8}, {@code 2001:db8::/32}, or one
 * address ({@code 127.0.0.1} is {@code 127.0.0.1/32}). Host bits below the prefix are ignored
 * ({@code 10.1.2.3/8} is {@code 10.0.0.0/8}). An IPv4-mapped IPv6 block ({@code ::ffff:10.0.0.0/104})
 * is the IPv4 block it maps, as {@link IpAddresses} reads such addresses as IPv4.
 *
 * <pre>{@code
 * Cidr proxies = Cidr.parse("10.0.0.0/8");
 * proxies.contains(IpAddresses.parse("10.20.30.40"));   // true
 * }</pre>
 */
public final class Cidr {
    private final byte[] network;
    private final int prefix;

    private Cidr(byte[] network, int prefix) {
        this.network = network;
        this.prefix = prefix;
    }

    /**
     * Parses {@code text}.
     *
     * @param text an IP address or a CIDR block, surrounding white space ignored
     * @return the block
     * @throws InvalidConfigurationException naming the text when it is not an address or a CIDR block
     */
    public static Cidr parse(String text) {
        String trimmed = text == null ? "" : text.trim();
        if (trimmed.chars().anyMatch(c -> c == ',' || Character.isWhitespace(c))) {
            // A list typed into one entry ("10.0.0.0/8, 10.1.0.0/16"): said so, rather than blamed on the prefix length.
            throw new InvalidConfigurationException("cidr", "must be one IP address or CIDR block per entry, was \""
                    + sanitize(text) + "\" (a list? give each block as its own entry)");
        }
        int slash = trimmed.indexOf('/');
        String address = slash < 0 ? trimmed : trimmed.substring(0, slash);
        byte[] bytes = IpAddresses.parse(address);
        boolean mapped = bytes != null && bytes.length == 4 && address.indexOf(':') >= 0;
        if (bytes == null) {
            throw new InvalidConfigurationException("cidr", "must be an IP address or CIDR block such as 10.0.0.0/8 or 2001:db8::/32, was \""
                    + sanitize(text) + "\"");
        }
        int max = mapped ? 128 : bytes.length * 8;
        int prefix = max;
        if (slash >= 0) {
            String digits = trimmed.substring(slash + 1);
            if (!digits.matches("\\d{1,3}") || Integer.parseInt(digits) > max || (mapped && Integer.parseInt(digits) < 96)) {
                throw new InvalidConfigurationException("cidr", "prefix length must be " + (mapped ? 96 : 0) + "-" + max + ", was \""
                        + sanitize(text) + "\"");
            }
            prefix = Integer.parseInt(digits);
        }
        if (mapped) {
            prefix -= 96;
        }
        return new Cidr(mask(bytes, prefix), prefix);
    }

    /**
     * The block of {@code prefix} bits that holds {@code address} (4 or 16 bytes, as from
     * {@link IpAddresses#parse}): {@code containing(parse("2001:db8:1:2:a:b:c:d"), 64)} is {@code 2001:db8:1:2::/64}.
     *
     * @param address the address, 4 or 16 bytes
     * @param prefix  the prefix length, 0 to 32 or 0 to 128
     * @return the block
     * @throws IllegalArgumentException if the address is not 4 or 16 bytes or the prefix does not fit it
     */
    public static Cidr containing(byte[] address, int prefix) {
        if (address == null || (address.length != 4 && address.length != 16)) {
            throw new IllegalArgumentException("an IP address has 4 or 16 bytes");
        }
        if (prefix < 0 || prefix > address.length * 8) {
            throw new IllegalArgumentException("prefix length must be 0-" + address.length * 8 + ", was " + prefix);
        }
        return new Cidr(mask(address, prefix), prefix);
    }

    /**
     * Whether {@code address} is inside this block.
     *
     * @param address 4 or 16 bytes, as from {@link IpAddresses#parse}
     * @return true if it is; false for null or an address of the other family
     */
    public boolean contains(byte[] address) {
        if (address == null || address.length != network.length) {
            return false;
        }
        int whole = prefix / 8;
        for (int i = 0; i < whole; i++) {
            if (address[i] != network[i]) {
                return false;
            }
        }
        int rest = prefix % 8;
        if (rest == 0) {
            return true;
        }
        int bits = (0xff << (8 - rest)) & 0xff;
        return (address[whole] & bits) == (network[whole] & 0xff);
    }

    /**
     * The prefix length; the same as {@link #prefixLength()}.
     *
     * @return how many leading bits the block fixes
     */
    public int prefix() {
        return prefix;
    }

    private static byte[] mask(byte[] address, int prefix) {
        byte[] out = address.clone();
        for (int bit = prefix; bit < out.length * 8; bit++) {
            out[bit / 8] &= (byte) ~(0x80 >>> (bit % 8));
        }
        return out;
    }

    private static String sanitize(String text) {
        if (text == null) {
            return "null";
        }
        String s = text.replaceAll("[^\\x20-\\x7e]", "?");
        return s.length() > 80 ? s.substring(0, 80) + "..." : s;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Cidr other && prefix == other.prefix && Arrays.equals(network, other.network);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(network) + prefix;
    }

    /**
     * How many leading bits the block fixes.
     *
     * @return the prefix length; 0 for every address of its family
     */
    public int prefixLength() {
        return prefix;
    }

    /** The canonical text, e.g. {@code 10.0.0.0/8}. */
    @Override
    public String toString() {
        return IpAddresses.format(network) + "/" + prefix;
    }
}
