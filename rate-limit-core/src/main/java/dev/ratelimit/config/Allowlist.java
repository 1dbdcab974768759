package dev.ratelimit.config;

import dev.ratelimit.InvalidConfigurationException;

import java.util.List;

/**
 * Requests that are never limited.
 *
 * @param paths   path patterns in {@link EndpointRule} syntax, e.g. {@code /health}
 * @param clients client ids ({@code apikey:...}, {@code ip:...}) or CIDR blocks ({@code 10.0.0.0/8})
 */
public record Allowlist(List<String> paths, List<String> clients) {
    /** Nothing allowlisted. */
    public static final Allowlist NONE = new Allowlist(List.of(), List.of());

    /**
     * Copies both lists.
     *
     * @param paths   path patterns
     * @param clients client ids or CIDR blocks
     * @throws InvalidConfigurationException for a null list or entry, naming it
     */
    public Allowlist {
        paths = copy("allowlist.paths", paths);
        clients = copy("allowlist.clients", clients);
    }

    private static List<String> copy(String field, List<String> entries) {
        if (entries == null) {
            throw new InvalidConfigurationException(field, "must be a list (empty for none), was null");
        }
        for (int i = 0; i < entries.size(); i++) {
            if (entries.get(i) == null) {
                throw new InvalidConfigurationException(field + "[" + i + "]", "must not be null");
            }
        }
        return List.copyOf(entries);
    }
}
