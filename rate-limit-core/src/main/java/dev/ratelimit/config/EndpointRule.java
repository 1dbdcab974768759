package dev.ratelimit.config;

import dev.ratelimit.InvalidConfigurationException;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Maps requests to a named endpoint: an HTTP method (or {@code *}) and a path pattern. A pattern is
 * an exact path ({@code /api/scan}), or ends in {@code /*} (one more segment) or {@code /**} (any
 * depth, the prefix itself included).
 *
 * @param method  an HTTP method (upper-cased: {@code get} is {@code GET}), or {@code *} or null for any
 * @param path    the path pattern, starting with {@code /}
 * @param name    the endpoint's name, e.g. {@code scan}: 1-64 of {@code [A-Za-z0-9._-]}
 * @param cost    what one request costs, {@code >= 1}
 * @param shadow  when true, this endpoint's rejections are reported (headers, listeners) but not enforced
 */
public record EndpointRule(String method, String path, String name, long cost, boolean shadow) {
    static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    /**
     * {@code *}, or an HTTP method: an RFC 9110 token ({@code VERSION-CONTROL}, {@code UPDATEREDIRECTREF})
     * without {@code *}. Checked before upper-casing: Unicode rules would turn {@code ß} into {@code SS}
     * and {@code ſ} into {@code S}.
     */
    private static final Pattern METHOD = Pattern.compile("\\*|[A-Za-z0-9!#$%&'+.^_`|~-]{1,32}");

    /**
     * Validates and normalizes (method to upper case, null to {@code *}).
     *
     * @param method  an HTTP method, {@code *} or null
     * @param path    the path pattern
     * @param name    the endpoint's name
     * @param cost    what one request costs
     * @param shadow  whether rejections are only reported
     * @throws InvalidConfigurationException when a field is invalid, naming it
     */
    public EndpointRule {
        if (method != null && !METHOD.matcher(method).matches()) {
            throw new InvalidConfigurationException("method", "must be an HTTP method or *, was \"" + method + "\"");
        }
        method = method == null ? "*" : method.toUpperCase(Locale.ROOT);
        if (path == null || !path.startsWith("/")) {
            throw new InvalidConfigurationException("path", "must start with /, was " + (path == null ? "null" : "\"" + path + "\""));
        }
        String body = path.endsWith("/**") ? path.substring(0, path.length() - 3)
                : path.endsWith("/*") ? path.substring(0, path.length() - 2) : path;
        if (body.contains("*")) {
            throw new InvalidConfigurationException("path", "may only end in /* or /**, was \"" + path + "\"");
        }
        if (name == null || !NAME.matcher(name).matches()) {
            throw new InvalidConfigurationException("name", "must be 1-64 characters of [A-Za-z0-9._-], was " + (name == null ? "null" : "\"" + name + "\""));
        }
        if (cost < 1) {
            throw new InvalidConfigurationException("cost", "must be >= 1, was " + cost);
        }
    }

    /**
     * A rule of cost 1, enforced.
     *
     * @param method an HTTP method, {@code *} or null
     * @param path   the path pattern
     * @param name   the endpoint's name
     * @return the rule
     * @throws InvalidConfigurationException as {@link #EndpointRule}
     */
    public static EndpointRule of(String method, String path, String name) {
        return new EndpointRule(method, path, name, 1, false);
    }

    /**
     * Whether a request with {@code requestMethod} and {@code requestPath} matches this rule.
     *
     * @param requestMethod the request's method, compared as is (case-sensitive) unless the rule's is {@code *}
     * @param requestPath   the request's path
     * @return true if both match
     */
    public boolean matches(String requestMethod, String requestPath) {
        if (!"*".equals(method) && !method.equals(requestMethod)) {
            return false;
        }
        if (path.endsWith("/**")) {
            String prefix = path.substring(0, path.length() - 3);
            return requestPath.equals(prefix) || requestPath.startsWith(prefix + "/");
        }
        if (path.endsWith("/*")) {
            String prefix = path.substring(0, path.length() - 1);
            return requestPath.startsWith(prefix) && requestPath.indexOf('/', prefix.length()) < 0
                    && requestPath.length() > prefix.length();
        }
        return path.equals(requestPath);
    }
}
