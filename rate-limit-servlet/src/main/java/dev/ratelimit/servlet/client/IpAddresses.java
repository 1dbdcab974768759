package dev.ratelimit.servlet.client;

import java.util.Arrays;

/**
 * IP address literals, parsed and printed without any name lookup.
 *
 * <p>{@link #parse} accepts only literals: IPv4 dotted quads ({@code 203.0.113.7}; no leading zeros,
 * which some parsers read as octal) and IPv6 in any RFC 4291 form, including embedded IPv4
 * ({@code ::ffff:192.0.2.1}) and a zone id ({@code fe80::1%eth0}, dropped). Anything else,
 * a host name included, is not an address: nothing here ever calls DNS.
 *
 * <p>{@link #format} prints the one canonical text of an address: IPv4 dotted quad, IPv6 in the
 * RFC 5952 form (lower case, no leading zeros, the longest run of two or more zero groups as
 * {@code ::}), and an IPv4-mapped IPv6 address ({@code ::ffff:a.b.c.d}) as its IPv4 address, so
 * that one client reaching a dual-stack server counts as one.
 */
public final class IpAddresses {
    private static final int MAX_LITERAL = 64;

    private IpAddresses() {
    }

    /**
     * The canonical text of the address literal {@code text} (see the class documentation), or
     * {@code null} if {@code text} is not one (null included).
     *
     * @param text an address literal, or any text (null too)
     * @return the canonical text, or {@code null}
     */
    public static String normalize(String text) {
        byte[] address = parse(text);
        return address == null ? null : format(address);
    }

    /**
     * The address {@code text} denotes (4 bytes for IPv4, 16 for IPv6; an IPv4-mapped IPv6 address
     * gives its 4 IPv4 bytes), or {@code null} if {@code text} is not an IP literal (null included).
     *
     * @param text an address literal, or any text (null too)
     * @return the address's bytes, or {@code null}
     */
    public static byte[] parse(String text) {
        if (text == null || text.isEmpty() || text.length() > MAX_LITERAL) {
            return null;
        }
        if (text.indexOf(':') < 0) {
            return parseIpv4(text, 0, text.length());
        }
        int zone = text.indexOf('%');
        int end = zone < 0 ? text.length() : zone;
        if (zone >= 0 && !validZone(text, zone + 1)) {
            return null;
        }
        byte[] v6 = parseIpv6(text, end);
        return v6 == null ? null : unmapped(v6);
    }

    /**
     * {@link #parse} of the address in a client id after its {@code "ip:"}, as a custom resolver may
     * write it: bare, or in brackets, as Jetty's {@code getRemoteAddr()} gives an IPv6 address.
     *
     * @param text the address, bare or in brackets; not null
     * @return the address's bytes, or {@code null} if it is not an IP literal
     */
    public static byte[] parseClientAddress(String text) {
        if (text.length() > 2 && text.charAt(0) == '[' && text.charAt(text.length() - 1) == ']') {
            return parse(text.substring(1, text.length() - 1));
        }
        return parse(text);
    }

    /**
     * The canonical text of a 4- or 16-byte address.
     *
     * @param address the address's bytes
     * @return its canonical text
     * @throws IllegalArgumentException if {@code address} is neither 4 nor 16 bytes
     */
    public static String format(byte[] address) {
        if (address.length == 4) {
            return (address[0] & 0xff) + "." + (address[1] & 0xff) + "." + (address[2] & 0xff) + "." + (address[3] & 0xff);
        }
        if (address.length != 16) {
            throw new IllegalArgumentException("an IP address has 4 or 16 bytes, was " + address.length);
        }
        byte[] v4 = unmapped(address);
        if (v4.length == 4) {
            return format(v4);
        }
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = ((address[2 * i] & 0xff) << 8) | (address[2 * i + 1] & 0xff);
        }
        // RFC 5952 4.2: compress the longest run of at least two zero groups, the first on a tie.
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < 8; ) {
            if (groups[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j;
        }
        StringBuilder out = new StringBuilder(39);
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                out.append("::");
                i += bestLength - 1;
                continue;
            }
            if (out.length() > 0 && out.charAt(out.length() - 1) != ':') {
                out.append(':');
            }
            out.append(Integer.toHexString(groups[i]));
        }
        return out.toString();
    }

    /** The IPv4 address inside an IPv4-mapped IPv6 address, otherwise {@code address} itself. */
    static byte[] unmapped(byte[] address) {
        if (address.length != 16) {
            return address;
        }
        for (int i = 0; i < 10; i++) {
            if (address[i] != 0) {
                return address;
            }
        }
        if (address[10] != (byte) 0xff || address[11] != (byte) 0xff) {
            return address;
        }
        return new byte[] {address[12], address[13], address[14], address[15]};
    }

    /** The value of an ASCII hex digit, or -1. */
    private static int hex(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        return c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    }

    private static boolean validZone(String text, int from) {
        if (from >= text.length()) {
            return false;
        }
        for (int i = from; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '.' || c == '_' || c == '-')) {
                return false;
            }
        }
        return true;
    }

    /** Four decimal octets in {@code text[from, to)}, each 0-255 without leading zeros. */
    private static byte[] parseIpv4(String text, int from, int to) {
        byte[] out = new byte[4];
        int part = 0;
        int i = from;
        while (part < 4) {
            int start = i;
            int value = 0;
            while (i < to && text.charAt(i) >= '0' && text.charAt(i) <= '9' && i - start < 3) {
                value = value * 10 + (text.charAt(i) - '0');
                i++;
            }
            int digits = i - start;
            if (digits == 0 || value > 255 || (digits > 1 && text.charAt(start) == '0')) {
                return null;
            }
            out[part++] = (byte) value;
            if (part < 4) {
                if (i >= to || text.charAt(i) != '.') {
                    return null;
                }
                i++;
            }
        }
        return i == to ? out : null;
    }

    /** An IPv6 literal in {@code text[0, end)}. */
    private static byte[] parseIpv6(String text, int end) {
        byte[] out = new byte[16];
        int group = 0;
        int gap = -1;
        int i = 0;
        if (end >= 2 && text.charAt(0) == ':' && text.charAt(1) == ':') {
            gap = 0;
            i = 2;
            if (end == 2) {
                return out;
            }
        } else if (end > 0 && text.charAt(0) == ':') {
            return null;
        }
        while (i < end) {
            if (group == 8) {
                return null;
            }
            int start = i;
            int value = 0;
            while (i < end && hex(text.charAt(i)) >= 0 && i - start < 4) {
                value = (value << 4) | hex(text.charAt(i));
                i++;
            }
            if (i < end && text.charAt(i) == '.') {
                // Embedded IPv4 in the last 32 bits.
                if (group > 6) {
                    return null;
                }
                byte[] v4 = parseIpv4(text, start, end);
                if (v4 == null) {
                    return null;
                }
                System.arraycopy(v4, 0, out, 2 * group, 4);
                group += 2;
                i = end;
                break;
            }
            if (i == start) {
                return null;
            }
            out[2 * group] = (byte) (value >>> 8);
            out[2 * group + 1] = (byte) value;
            group++;
            if (i == end) {
                break;
            }
            if (text.charAt(i) != ':') {
                return null;
            }
            i++;
            if (i < end && text.charAt(i) == ':') {
                if (gap >= 0) {
                    return null;
                }
                gap = group;
                i++;
                if (i == end) {
                    break;
                }
            } else if (i == end) {
                return null;
            }
        }
        if (gap < 0) {
            return group == 8 ? out : null;
        }
        if (group == 8) {
            return null;
        }
        int tail = group - gap;
        System.arraycopy(out, 2 * gap, out, 16 - 2 * tail, 2 * tail);
        Arrays.fill(out, 2 * gap, 16 - 2 * tail, (byte) 0);
        return out;
    }
}
