package dev.ratelimit.servlet;

import dev.ratelimit.InvalidConfigurationException;
import dev.ratelimit.config.EndpointRule;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HexFormat;
import java.util.List;

/**
 * Maps a request to the first matching {@link EndpointRule}, on the path inside the web application.
 *
 * <p>The path is the container's decoded and normalized servlet path plus path info (so
 * {@code /app/api/%73can}, {@code /app/api/x/../scan} and {@code /app/api/scan;jsessionid=1} are
 * {@code /api/scan}), normalized once more so that no spelling of a path dodges its rule: empty and
 * {@code .} segments dropped, {@code ..} resolved (within the path info, never out of the servlet the
 * container chose: see {@link #routed}) and a trailing slash removed.
 * The container removed path parameters before decoding, so a {@code ;} here is a decoded {@code %3B},
 * part of its segment's name as the application sees it: {@code ..;} is not {@code ..}, and
 * {@code scan;x} is not {@code scan}. Jetty accepting ambiguous URIs ({@code UriCompliance.LEGACY})
 * routes {@code /api%2Fscan} to the servlet of {@code /api/scan} but throws from {@code getServletPath()}:
 * the path is then decoded from the request URI as Jetty routes it ({@link #decodedPathOf}), since
 * a failure to find it would let the request pass unlimited (the default failure mode). A {@code HEAD} request also matches {@code GET} rules (the
 * first matching rule wins, as for any request), since servlets answer {@code HEAD} with {@code doGet}: a catch-all rule after a
 * {@code GET} rule must not take its {@code HEAD} requests. Rule patterns must be normalized paths
 * themselves, or they could never match.
 */
final class Endpoints {
    private final EndpointRule[] rules;

    Endpoints(List<EndpointRule> rules) {
        this.rules = rules.toArray(new EndpointRule[0]);
        for (int i = 0; i < this.rules.length; i++) {
            requireNormalized("endpoints[" + i + "].path", this.rules[i].path());
            for (int earlier = 0; earlier < i; earlier++) {
                EndpointRule first = this.rules[earlier];
                EndpointRule rule = this.rules[i];
                if (covers(first, rule)) {
                    throw new InvalidConfigurationException("endpoints[" + i + "]", rule.method() + " " + rule.path()
                            + " never matches: endpoints[" + earlier + "] (" + first.method() + " " + first.path() + ") comes first "
                            + "and matches every request it would (the first matching rule wins); put the more specific rule first");
                }
            }
        }
    }

    /**
     * Whether every request {@code later} matches is matched by {@code first}, so that {@code later},
     * listed after it, could never apply. Exact for these patterns: an exact path is one request path,
     * {@code /x/*} the paths one segment below {@code /x}, {@code /x/**} {@code /x} and everything below.
     */
    static boolean covers(EndpointRule first, EndpointRule later) {
        boolean methods = first.method().equals("*") || first.method().equals(later.method())
                || first.method().equals("GET") && later.method().equals("HEAD");
        if (!methods) {
            return false;
        }
        String path = later.path();
        if (!path.endsWith("/*") && !path.endsWith("/**")) {
            return first.matches(first.method(), path);
        }
        if (first.path().endsWith("/**")) {
            String prefix = first.path().substring(0, first.path().length() - 3);
            String body = path.substring(0, path.lastIndexOf('/'));
            return body.equals(prefix) || body.startsWith(prefix + "/");
        }
        return path.endsWith("/*") && first.path().equals(path);
    }

    /**
     * Refuses a path pattern that no normalized request path can match (a trailing slash, an empty,
     * {@code .} or {@code ..} segment, a {@code ;} parameter): such a rule would silently never apply.
     */
    static void requireNormalized(String field, String pattern) {
        // Request paths arrive decoded and without their query, so these only match what nobody means
        // ("/api/scan " matches "/api/scan%20", "/a%20b" matches "/a%2520b"): a typo or a URL, not a path.
        // A space inside is a decoded path's own ("/files/annual report" matches /files/annual%20report).
        String problem = pattern.chars().anyMatch(Character::isISOControl) || !pattern.strip().equals(pattern)
                ? "control characters or whitespace at either end" : pattern.indexOf('?') >= 0 || pattern.indexOf('#') >= 0
                ? "a query (?) or fragment (#)" : pattern.indexOf('%') >= 0 ? "percent-encoding" : null;
        if (problem != null) {
            throw new InvalidConfigurationException(field, "must not contain " + problem + ", since request paths are matched "
                    + "decoded and without their query: \"" + pattern.replaceAll("[^\\x20-\\x7e]", "?") + "\" never matches what it says");
        }
        String body = pattern.endsWith("/**") ? pattern.substring(0, pattern.length() - 3)
                : pattern.endsWith("/*") ? pattern.substring(0, pattern.length() - 2) : pattern;
        String wildcard = pattern.substring(body.length());
        // Containers remove path parameters from the paths matched: a pattern with one means the path without it.
        String expected = normalize(body.replaceAll(";[^/]*", ""));
        if (!wildcard.isEmpty() && expected.equals("/")) {
            expected = "";
        }
        if (!expected.equals(body)) {
            throw new InvalidConfigurationException(field, "must be a normalized path, since request paths are matched "
                    + "normalized (no trailing /, empty, . or .. segments, or ;parameters): \"" + pattern.replaceAll("[^\\x20-\\x7e]", "?")
                    + "\" never matches, write \"" + expected + wildcard + "\"");
        }
    }

    int size() {
        return rules.length;
    }

    EndpointRule rule(int index) {
        return rules[index];
    }

    /** The index of the first rule matching, or -1; a {@code HEAD} request also matches {@code GET} rules. */
    int match(String method, String path) {
        boolean head = "HEAD".equals(method);
        for (int i = 0; i < rules.length; i++) {
            EndpointRule rule = rules[i];
            if (rule.matches(method, path) || head && "GET".equals(rule.method()) && rule.matches("GET", path)) {
                return i;
            }
        }
        return -1;
    }

    /** The normalized path of {@code request} inside its context, e.g. {@code /api/scan}. */
    static String pathOf(HttpServletRequest request) {
        boolean include = request.getDispatcherType() == DispatcherType.INCLUDE;
        // An include keeps the including request's paths; the included target is in attributes.
        String servletPath;
        String pathInfo;
        if (include) {
            servletPath = (String) request.getAttribute(RequestDispatcher.INCLUDE_SERVLET_PATH);
            pathInfo = (String) request.getAttribute(RequestDispatcher.INCLUDE_PATH_INFO);
        } else {
            try {
                servletPath = request.getServletPath();
                pathInfo = request.getPathInfo();
            } catch (IllegalArgumentException ambiguous) {
                // Jetty with a lenient URI compliance (LEGACY) routes /api%2Fscan or /x/%2e%2e/api/scan by
                // its decoded path, to the servlet of /api/scan, but refuses to give such a request's servlet path.
                return decodedPathOf(request);
            }
        }
        String path = routed(servletPath) + resolvedWithin(pathInfo);
        return path.isEmpty() ? "/" : path;
    }

    /**
     * A servlet path without empty or {@code .} segments or a trailing slash ("" for none or the root).
     * The container resolved every {@code ..} it routes by: one left in its servlet path or path info came
     * from a decoded {@code %2F} (Jetty under {@code UriCompliance.LEGACY} with {@code setDecodeAmbiguousURIs}),
     * and resolving it over the whole path would take the request out of the servlet the container chose:
     * {@code /api/scan/..%2F..%2Fhealth} reaches the servlet at {@code /api/*} with the path info
     * {@code /scan/../../health}, or the default servlet with that whole servlet path, and must not count
     * as an allowlisted {@code /health}. So a {@code ..} climbs within the path info only ({@code /api/health};
     * {@code /api/x%2F..%2Fscan} is {@code /api/scan}, as a servlet that resolves its path info serves it),
     * and is kept as it is in a servlet path, by which the container routed.
     */
    private static String routed(String servletPath) {
        if (servletPath == null) {
            return "";
        }
        boolean clean = servletPath.isEmpty() || servletPath.charAt(0) == '/' && servletPath.indexOf("//") < 0
                && servletPath.indexOf("/.") < 0 && !servletPath.endsWith("/");
        if (clean) {
            return servletPath;
        }
        String kept = withoutEmptyOrDotSegments(servletPath);
        return kept.equals("/") ? "" : kept;
    }

    /** The path info with its dots resolved within it ({@link #normalize}); "" for none or the root. */
    private static String resolvedWithin(String pathInfo) {
        if (pathInfo == null) {
            return "";
        }
        String resolved = normalize(pathInfo);
        return resolved.equals("/") ? "" : resolved;
    }

    /** {@code /} and the segments of {@code path} joined by {@code /}, without empty or {@code .} ones; {@code ..} kept. */
    private static String withoutEmptyOrDotSegments(String path) {
        List<String> kept = new ArrayList<>();
        for (String segment : path.split("/")) {
            if (!segment.isEmpty() && !segment.equals(".")) {
                kept.add(segment);
            }
        }
        return "/" + String.join("/", kept);
    }

    /**
     * The path inside the application as Jetty routes a request by its URI: each segment without its
     * path parameters, percent-decoded (UTF-8, and Jetty's {@code %u} with four hex digits, {@code %u002e}), then {@code .} and
     * {@code ..} segments resolved as RFC 3986 does (so {@code %2e%2e} climbs, an empty segment is one to climb out of, and
     * {@code ..%2F} is part of a segment), then empty segments dropped as {@link #normalize} does, and the context path taken off. A
     * {@code %2F} separates nothing until then, then joins like {@code /}: {@code /api%2Fscan} is {@code /api/scan},
     * and the empty or {@code .} pieces it leaves are dropped ({@code /api/scan%2F} is {@code /api/scan}, as
     * {@code /api/scan/} is), while a {@code ..} piece is kept as it is.
     *
     * @throws IllegalArgumentException if the URI's encoding is malformed or it is not inside the context
     */
    static String decodedPathOf(HttpServletRequest request) {
        String path = decodedPath(request.getRequestURI());
        String context = decodedPath(request.getContextPath());
        if (context.equals("/")) {
            return path;
        }
        if (path.equals(context)) {
            return "/";
        }
        if (path.startsWith(context + "/")) {
            return path.substring(context.length());
        }
        throw new IllegalArgumentException("the request URI is not inside the context path");
    }

    private static String decodedPath(String uri) {
        // Dot segments resolve as RFC 3986 and Jetty resolve them: an empty segment is one, so "/;x/../api"
        // and "/x//../api" climb out of the empty segment, not out of the one before it.
        Deque<String> kept = new ArrayDeque<>();
        String[] raw = uri.split("/", -1);
        for (int i = 1; i < raw.length; i++) {
            int parameters = raw[i].indexOf(';');
            String segment = decode(parameters < 0 ? raw[i] : raw[i].substring(0, parameters));
            if (segment.equals("..")) {
                kept.pollLast();
            } else if (!segment.equals(".")) {
                kept.addLast(segment);
            }
        }
        // A decoded %2F separates like a "/" now: the empty and "." pieces it leaves ("scan%2F", "api%2F%2Fscan")
        // are dropped as those of "/api/scan/" and "/api//scan" are. A ".." piece stays: Jetty resolved dot
        // segments before decoding, so "..%2F" climbed nothing on the way to the servlet either.
        return withoutEmptyOrDotSegments("/" + String.join("/", kept));
    }

    private static String decode(String encoded) {
        if (encoded.indexOf('%') < 0) {
            return encoded;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(encoded.length());
        for (int i = 0; i < encoded.length(); i++) {
            char c = encoded.charAt(i);
            if (c != '%') {
                bytes.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
            } else if (i + 5 < encoded.length() && (encoded.charAt(i + 1) == 'u' || encoded.charAt(i + 1) == 'U')) {
                bytes.writeBytes(String.valueOf((char) HexFormat.fromHexDigits(encoded, i + 2, i + 6)).getBytes(StandardCharsets.UTF_8));
                i += 5;
            } else if (i + 2 < encoded.length()) {
                bytes.write(HexFormat.fromHexDigits(encoded, i + 1, i + 3));
                i += 2;
            } else {
                throw new IllegalArgumentException("a truncated percent-encoding");
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    /**
     * {@code path} without empty, {@code .} or {@code ..} segments or a trailing slash. A {@code ;} is
     * kept: in a decoded servlet path it is a literal character, never a path parameter.
     */
    static String normalize(String path) {
        if (path.isEmpty()) {
            return "/";
        }
        boolean clean = path.charAt(0) == '/' && path.indexOf("//") < 0 && path.indexOf("/.") < 0
                && (path.length() == 1 || path.charAt(path.length() - 1) != '/');
        if (clean) {
            return path;
        }
        return resolved(Arrays.asList(path.split("/")));
    }

    /** {@code /} and {@code segments} joined by {@code /}, without empty or {@code .} ones, {@code ..} resolved (never above the root). */
    private static String resolved(List<String> segments) {
        Deque<String> kept = new ArrayDeque<>();
        for (String segment : segments) {
            if (segment.isEmpty() || segment.equals(".")) {
                continue;
            }
            if (segment.equals("..")) {
                kept.pollLast();
            } else {
                kept.addLast(segment);
            }
        }
        return "/" + String.join("/", kept);
    }
}
