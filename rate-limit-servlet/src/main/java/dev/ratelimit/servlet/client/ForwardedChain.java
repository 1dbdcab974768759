package dev.ratelimit.servlet.client;

import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;

/**
 * Finds the client's address behind trusted proxies: the right-most address of the forwarding
 * chain that is not itself a trusted proxy.
 *
 * <p>Each proxy appends the address it received the request from, so the right end of the chain is
 * written by the proxies we trust and the left end by whoever sent the request. Walking from the
 * right and stopping at the first untrusted address gives the last address a trusted proxy vouches
 * for. An entry that cannot be read before that point (garbage, {@code unknown}, an obfuscated
 * RFC 7239 node) breaks the chain: the header is ignored and the peer is the client. If every
 * entry is a trusted proxy, the left-most is the client.
 */
final class ForwardedChain {
    /** Hops read at most; a longer chain is ignored as malformed. */
    static final int MAX_HOPS = 64;

    private ForwardedChain() {
    }

    /**
     * The client's canonical address, or {@code null} if the peer is not an IP literal.
     *
     * @param peer    {@code request.getRemoteAddr()}
     * @param values  the values of the forwarding header, in order (may be null or empty)
     */
    static String clientAddress(String peer, Enumeration<String> values, ForwardedHeader header, TrustedProxies trusted) {
        byte[] peerAddress = IpAddresses.parse(unbracket(peer));
        if (peerAddress == null) {
            return null;
        }
        if (trusted.isEmpty() || !trusted.contains(peerAddress) || values == null || !values.hasMoreElements()) {
            return IpAddresses.format(peerAddress);
        }
        List<String> nodes = header == ForwardedHeader.FORWARDED ? forwardedNodes(values) : xForwardedForNodes(values);
        byte[] client = nodes == null || nodes.isEmpty() ? null : rightMostUntrusted(nodes, trusted);
        return IpAddresses.format(client == null ? peerAddress : client);
    }

    private static byte[] rightMostUntrusted(List<String> nodes, TrustedProxies trusted) {
        byte[] candidate = null;
        for (int i = nodes.size() - 1; i >= 0; i--) {
            candidate = nodeAddress(nodes.get(i));
            if (candidate == null) {
                return null;
            }
            if (!trusted.contains(candidate)) {
                return candidate;
            }
        }
        return candidate;
    }

    /** The comma-separated entries of every {@code X-Forwarded-For} line, or null when malformed. */
    static List<String> xForwardedForNodes(Enumeration<String> values) {
        List<String> nodes = new ArrayList<>();
        while (values.hasMoreElements()) {
            String value = values.nextElement();
            int start = 0;
            while (start <= value.length()) {
                int comma = value.indexOf(',', start);
                int end = comma < 0 ? value.length() : comma;
                String node = value.substring(start, end).trim();
                if (node.isEmpty() || nodes.size() == MAX_HOPS) {
                    return null;
                }
                nodes.add(node);
                start = end + 1;
            }
        }
        return nodes;
    }

    /**
     * The {@code for} parameter of every element of every {@code Forwarded} line (RFC 7239:
     * elements separated by commas, pairs by semicolons, values a token or a quoted string), or
     * null when malformed. An element without {@code for} stands for an unknown hop.
     */
    static List<String> forwardedNodes(Enumeration<String> values) {
        List<String> nodes = new ArrayList<>();
        while (values.hasMoreElements()) {
            if (!parseForwarded(values.nextElement(), nodes)) {
                return null;
            }
        }
        return nodes;
    }

    private static boolean parseForwarded(String value, List<String> nodes) {
        int i = 0;
        int n = value.length();
        String forValue = null;
        while (true) {
            i = skipSpaces(value, i);
            int nameStart = i;
            while (i < n && isTokenChar(value.charAt(i))) {
                i++;
            }
            if (i == nameStart || i >= n || value.charAt(i) != '=') {
                return false;
            }
            String name = value.substring(nameStart, i).toLowerCase(Locale.ROOT);
            i++;
            String parsed;
            if (i < n && value.charAt(i) == '"') {
                StringBuilder quoted = new StringBuilder();
                i++;
                while (i < n && value.charAt(i) != '"') {
                    char c = value.charAt(i);
                    if (c == '\\' && i + 1 < n) {
                        i++;
                        c = value.charAt(i);
                    }
                    quoted.append(c);
                    i++;
                }
                if (i >= n) {
                    return false;
                }
                i++;
                parsed = quoted.toString();
            } else {
                int start = i;
                while (i < n && isTokenChar(value.charAt(i))) {
                    i++;
                }
                if (i == start) {
                    return false;
                }
                parsed = value.substring(start, i);
            }
            if (name.equals("for")) {
                if (forValue != null) {
                    return false;
                }
                forValue = parsed;
            }
            i = skipSpaces(value, i);
            if (i >= n || value.charAt(i) == ',') {
                if (nodes.size() == MAX_HOPS) {
                    return false;
                }
                nodes.add(forValue == null ? "unknown" : forValue);
                forValue = null;
                if (i >= n) {
                    return true;
                }
                i++;
            } else if (value.charAt(i) == ';') {
                i++;
            } else {
                return false;
            }
        }
    }

    /**
     * The address of one node: {@code 192.0.2.1}, {@code 192.0.2.1:8080}, {@code 2001:db8::1},
     * {@code [2001:db8::1]} or {@code [2001:db8::1]:4711}; null for anything else.
     */
    static byte[] nodeAddress(String node) {
        if (node.startsWith("[")) {
            int close = node.indexOf(']');
            if (close < 0 || (close + 1 < node.length() && !isPort(node, close + 1))) {
                return null;
            }
            String inside = node.substring(1, close);
            return inside.indexOf(':') < 0 ? null : IpAddresses.parse(inside);
        }
        int colon = node.indexOf(':');
        if (colon >= 0 && colon == node.lastIndexOf(':')) {
            return isPort(node, colon) ? IpAddresses.parse(node.substring(0, colon)) : null;
        }
        return IpAddresses.parse(node);
    }

    /** Whether {@code s} from {@code colon} is {@code :} and 1-5 digits. */
    private static boolean isPort(String s, int colon) {
        int digits = s.length() - colon - 1;
        if (s.charAt(colon) != ':' || digits < 1 || digits > 5) {
            return false;
        }
        for (int i = colon + 1; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    private static String unbracket(String peer) {
        if (peer != null && peer.length() > 2 && peer.charAt(0) == '[' && peer.charAt(peer.length() - 1) == ']') {
            return peer.substring(1, peer.length() - 1);
        }
        return peer;
    }

    private static int skipSpaces(String s, int i) {
        while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t')) {
            i++;
        }
        return i;
    }

    /** RFC 9110 tchar. */
    static boolean isTokenChar(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
    }
}
