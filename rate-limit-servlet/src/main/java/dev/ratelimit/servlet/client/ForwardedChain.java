package dev.ratelimit.servlet.client;

import jakarta.servlet.http.HttpServletRequest;

import java.util.ArrayList;
import java.util.Collections;
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
 * for; entries further left are the client's own writing and are never read. An entry that cannot
 * be read before that point (garbage, an empty entry, {@code unknown}, an obfuscated RFC 7239 node),
 * or more than {@link #MAX_HOPS} trusted hops, breaks the chain: the header is ignored and the peer
 * is the client. If every entry is a trusted proxy, the left-most is the client.
 */
final class ForwardedChain {
    /** Trusted entries read at most, from the right; a chain with more is ignored as malformed. */
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
        byte[] client = nodes.isEmpty() ? null : rightMostUntrusted(nodes, trusted);
        return IpAddresses.format(client == null ? peerAddress : client);
    }

    /** Whether {@code peer}'s forwarding header is read: it is one of {@code trusted}. */
    static boolean believes(String peer, TrustedProxies trusted) {
        byte[] peerAddress = trusted.isEmpty() ? null : IpAddresses.parse(unbracket(peer));
        return peerAddress != null && trusted.contains(peerAddress);
    }

    /**
     * Whether {@code X-Forwarded-For} or {@code Forwarded} of {@code request} (both: a container may
     * read either) names {@code address}: the container may have taken the address from it.
     */
    static boolean names(String address, HttpServletRequest request) {
        for (ForwardedHeader header : ForwardedHeader.values()) {
            Enumeration<String> values = request.getHeaders(header.headerName());
            if (values == null) {
                continue;
            }
            for (String node : header == ForwardedHeader.FORWARDED ? forwardedNodes(values) : xForwardedForNodes(values)) {
                byte[] named = nodeAddress(node);
                if (named != null && IpAddresses.format(named).equals(address)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Walks at most {@link #MAX_HOPS} trusted entries from the right and the client's after them:
     * entries further left (the client's own writing) are never read, so they cannot break the chain.
     */
    private static byte[] rightMostUntrusted(List<String> nodes, TrustedProxies trusted) {
        byte[] candidate = null;
        int last = Math.max(0, nodes.size() - MAX_HOPS - 1);
        for (int i = nodes.size() - 1; i >= last; i--) {
            candidate = nodeAddress(nodes.get(i));
            if (candidate == null) {
                return null;
            }
            if (!trusted.contains(candidate)) {
                return candidate;
            }
        }
        return last == 0 ? candidate : null;
    }

    /**
     * The comma-separated entries of every {@code X-Forwarded-For} line, trimmed; an empty entry is
     * kept as {@code ""}, which {@link #nodeAddress} cannot read.
     */
    static List<String> xForwardedForNodes(Enumeration<String> values) {
        List<String> nodes = new ArrayList<>();
        while (values.hasMoreElements()) {
            String value = values.nextElement();
            int start = 0;
            while (start <= value.length()) {
                int comma = value.indexOf(',', start);
                int end = comma < 0 ? value.length() : comma;
                nodes.add(value.substring(start, end).trim());
                start = end + 1;
            }
        }
        return nodes;
    }

    /**
     * The {@code for} parameter of every element of every {@code Forwarded} line (RFC 7239:
     * elements separated by commas, pairs by semicolons, values a token or a quoted string). An
     * element without {@code for} stands for an unknown hop ({@code "unknown"}); a malformed element
     * is kept as {@code ""}, which {@link #nodeAddress} cannot read. Each line is split from the right,
     * as the walk reads it: the right end is what the proxies appended, so a quote a client left open
     * further left cannot swallow their elements.
     */
    static List<String> forwardedNodes(Enumeration<String> values) {
        List<String> nodes = new ArrayList<>();
        List<String> line = new ArrayList<>();
        while (values.hasMoreElements()) {
            String value = values.nextElement();
            line.clear();
            int end = value.length();
            while (true) {
                int start = elementStart(value, end);
                String forValue = forValue(value, start, end);
                line.add(forValue == null ? "" : forValue);
                if (start == 0) {
                    break;
                }
                end = start - 1;
            }
            Collections.reverse(line);
            nodes.addAll(line);
        }
        return nodes;
    }

    /** The index after the comma outside quoted strings that begins the element ending at {@code to}, or 0. */
    private static int elementStart(String value, int to) {
        boolean quoted = false;
        for (int i = to - 1; i >= 0; i--) {
            char c = value.charAt(i);
            if (c == '"' && !escaped(value, i)) {
                quoted = !quoted;
            } else if (c == ',' && !quoted) {
                return i + 1;
            }
        }
        return 0;
    }

    /** Whether the character at {@code i} follows an odd number of backslashes (a quoted-pair). */
    private static boolean escaped(String value, int i) {
        int backslashes = 0;
        for (int j = i - 1; j >= 0 && value.charAt(j) == '\\'; j--) {
            backslashes++;
        }
        return backslashes % 2 == 1;
    }

    /** The {@code for} value of the element {@code value[from, n)}, {@code "unknown"} without one, null when malformed. */
    private static String forValue(String value, int from, int n) {
        int i = from;
        String forValue = null;
        while (true) {
            i = skipSpaces(value, i, n);
            int nameStart = i;
            while (i < n && isTokenChar(value.charAt(i))) {
                i++;
            }
            if (i == nameStart || i >= n || value.charAt(i) != '=') {
                return null;
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
                    return null;
                }
                i++;
                parsed = quoted.toString();
            } else {
                int start = i;
                while (i < n && isTokenChar(value.charAt(i))) {
                    i++;
                }
                if (i == start) {
                    return null;
                }
                parsed = value.substring(start, i);
            }
            if (name.equals("for")) {
                if (forValue != null) {
                    return null;
                }
                forValue = parsed;
            }
            i = skipSpaces(value, i, n);
            if (i >= n) {
                return forValue == null ? "unknown" : forValue;
            }
            if (value.charAt(i) != ';') {
                return null;
            }
            i++;
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

    private static int skipSpaces(String s, int i, int end) {
        while (i < end && (s.charAt(i) == ' ' || s.charAt(i) == '\t')) {
            i++;
        }
        return i;
    }

    /** RFC 9110 tchar. */
    static boolean isTokenChar(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
    }
}
