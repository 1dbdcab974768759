package dev.ratelimit.servlet;

import dev.ratelimit.InvalidConfigurationException;
import dev.ratelimit.config.Allowlist;
import dev.ratelimit.config.EndpointRule;
import dev.ratelimit.servlet.client.Cidr;
import dev.ratelimit.servlet.client.IpAddresses;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Decides what {@link Allowlist} exempts. Paths use {@link EndpointRule} patterns (any method).
 * Clients are exact client ids ({@code apikey:...}, {@code ip:...} with the address bare or in
 * brackets, {@code ip:unknown}, or any id a custom resolver returns) or CIDR blocks ({@code 10.0.0.0/8}, also written {@code ip:10.0.0.0/8}); a block matches
 * clients identified by address ({@code ip:...}), i.e. requests without an API key.
 */
final class AllowlistMatcher {
    private final EndpointRule[] paths;
    /** The built-in resolver's id of a peer that is not an IP literal (a Unix socket). */
    private static final String UNKNOWN_PEER = "ip:unknown";
    private final Set<String> clientIds = new HashSet<>();
    private final Cidr[] blocks;
    private final boolean hasAddresses;

    AllowlistMatcher(Allowlist allowlist) {
        List<String> pathPatterns = allowlist.paths();
        this.paths = new EndpointRule[pathPatterns.size()];
        for (int i = 0; i < paths.length; i++) {
            try {
                paths[i] = EndpointRule.of("*", pathPatterns.get(i), "allowlist");
                Endpoints.requireNormalized("path", paths[i].path());
            } catch (InvalidConfigurationException e) {
                throw new InvalidConfigurationException("allowlist.paths[" + i + "]", e.problem());
            }
        }
        List<Cidr> cidrs = new ArrayList<>();
        List<String> clients = allowlist.clients();
        for (int i = 0; i < clients.size(); i++) {
            String entry = clients.get(i).trim();
            String unmatchable = unmatchable(entry);
            if (unmatchable != null) {
                throw new InvalidConfigurationException("allowlist.clients[" + i + "]", unmatchable + ", was " + shown(entry));
            }
            String address = entry.startsWith("ip:") ? entry.substring(3) : entry;
            String normalized = address.indexOf('/') < 0 ? canonical(address) : null;
            if (normalized != null) {
                clientIds.add("ip:" + normalized);
            } else if (entry.equals(UNKNOWN_PEER)) {
                clientIds.add(entry);
            } else if (address.indexOf('/') >= 0 && (entry.startsWith("ip:") || addressLike(entry))) {
                try {
                    cidrs.add(Cidr.parse(address));
                } catch (InvalidConfigurationException e) {
                    throw new InvalidConfigurationException("allowlist.clients[" + i + "]", e.problem());
                }
            } else if (!entry.startsWith("ip:") && entry.indexOf(':') > 0 && !(addressLike(entry) && entry.indexOf(':') != entry.lastIndexOf(':'))) {
                // An address-like entry with two colons (as every IPv6 address has) is a mistyped IPv6
                // address, not a client id; one with a single colon may be a resolver's id (acc:1234).
                clientIds.add(entry);
            } else {
                throw new InvalidConfigurationException("allowlist.clients[" + i + "]", "must be a client id (apikey:..., ip:...) "
                        + "or a CIDR block (10.0.0.0/8), was " + shown(entry));
            }
        }
        this.blocks = cidrs.toArray(new Cidr[0]);
        this.hasAddresses = blocks.length > 0 || clientIds.stream().anyMatch(id -> id.startsWith("ip:"));
    }

    /**
     * Why no client id could ever be {@code entry}, or null: ids hold no control characters,
     * addresses and keys no whitespace, the built-in prefixes are lower case, an API key is at least
     * one visible ASCII character, and an address has no port.
     */
    private static String unmatchable(String entry) {
        if (entry.chars().anyMatch(Character::isISOControl)) {
            return "must not contain control characters";
        }
        String squeezed = entry.replaceAll("\\s", "");
        if (!squeezed.equals(entry) && (addressLike(squeezed) || squeezed.startsWith("ip:") || squeezed.startsWith("apikey:"))) {
            // A resolver's own ids may hold spaces (a user's name); addresses and keys never do.
            return "must not contain whitespace: addresses, blocks and API keys have none";
        }
        int colon = entry.indexOf(':');
        String prefix = colon < 0 ? "" : entry.substring(0, colon);
        if (!prefix.equals("ip") && prefix.equalsIgnoreCase("ip") || !prefix.equals("apikey") && prefix.equalsIgnoreCase("apikey")) {
            return "must start with \"" + prefix.toLowerCase(java.util.Locale.ROOT) + ":\" in lower case, as client ids do";
        }
        if (prefix.equals("apikey") && (entry.length() == colon + 1 || !entry.chars().allMatch(c -> c >= '!' && c <= '~'))) {
            return "must name an API key after \"apikey:\" (one or more visible ASCII characters, as the filter accepts)";
        }
        if (entry.matches("(ip:)?([0-9]{1,3}\\.){3}[0-9]{1,3}:[0-9]+|(ip:)?\\[[0-9A-Fa-f:.%]+]:[0-9]+")) {
            return "must be an address without a port (a client is its address, whatever port it sends from)";
        }
        return null;
    }

    /** An address however a client id may spell it (bare, or in brackets as Jetty gives IPv6), canonical; or null. */
    private static String canonical(String address) {
        byte[] bytes = IpAddresses.parseClientAddress(address);
        return bytes == null ? null : IpAddresses.format(bytes);
    }

    /** Address characters only, with a dot or a colon (a hex-only API key has neither). */
    private static boolean addressLike(String entry) {
        return entry.matches("[0-9A-Fa-f:.%/\\[\\]]{1,64}") && (entry.indexOf('.') >= 0 || entry.indexOf(':') >= 0);
    }

    boolean allowsPath(String path) {
        for (EndpointRule rule : paths) {
            if (rule.matches("*", path)) {
                return true;
            }
        }
        return false;
    }

    boolean allowsClient(String clientId) {
        if (clientIds.contains(clientId)) {
            return true;
        }
        if (!hasAddresses || !clientId.startsWith("ip:")) {
            return false;
        }
        // The built-in resolver writes canonical addresses; a custom one may not (Tomcat spells IPv6
        // in full, Jetty in brackets): compare the address, however it is spelled.
        byte[] address = IpAddresses.parseClientAddress(clientId.substring(3));
        if (address == null) {
            return false;
        }
        if (clientIds.contains("ip:" + IpAddresses.format(address))) {
            return true;
        }
        for (Cidr block : blocks) {
            if (block.contains(address)) {
                return true;
            }
        }
        return false;
    }

    /**
     * An invalid entry as an error may show it: in full when it looks like an address or a block (the typo
     * is in it, and it holds no secret); otherwise only its length, since the likely mistake is an API key
     * listed without its {@code apikey:} prefix, and errors reach logs.
     */
    private static String shown(String entry) {
        if (addressLike(entry) || entry.startsWith("ip:") && addressLike(entry.substring(3))) {
            return "\"" + entry + "\"";
        }
        return entry.length() + " characters (not shown: it may be an API key; write apikey:<key> to allowlist a key)";
    }
}
