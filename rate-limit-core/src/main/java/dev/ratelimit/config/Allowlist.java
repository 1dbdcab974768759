package dev.ratelimit.config;

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

    /** Copies both lists. */
    public Allowlist {
        paths = List.copyOf(paths);
        clients = List.copyOf(clients);
    }
}
