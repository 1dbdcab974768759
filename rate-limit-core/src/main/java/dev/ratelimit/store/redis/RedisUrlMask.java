package dev.ratelimit.store.redis;

/**
 * A Redis URL as an error message or a log line may show it, whether or not it parses: whatever the
 * store could take for credentials, and whatever a typo could have put a password in, is replaced by
 * {@code ***}, and control characters by {@code ?}. The store, the servlet filter's init-param errors
 * and the example app all show URLs through this one rule:
 * <ul>
 *   <li>with an {@code @}: everything from {@code ://} (or from the start, without one before it: a
 *       typo such as {@code redis:/}) to the last {@code @}, as the store reads credentials (a password
 *       may hold {@code /} or {@code @}): {@code redis://admin:s3cret@cache:6379} shows as
 *       {@code redis://***@cache:6379};</li>
 *   <li>without one: a port that is not a number, or any port after an empty host, and everything
 *       after it, since a URL whose host was left out puts the password there: {@code redis://:s3cret}
 *       shows as {@code redis://:***};</li>
 *   <li>a query or fragment after the last {@code @} (a password may hold {@code ?} or {@code #}), which
 *       the store never takes and other clients' URLs put passwords in ({@code ?password=...}):
 *       {@code redis://cache?password=s3cret} shows as {@code redis://cache?***}.</li>
 * </ul>
 */
public final class RedisUrlMask {
    private static final String HIDDEN = "***";

    private RedisUrlMask() {
    }

    /**
     * {@code url} with its possible credentials replaced by {@code ***}.
     *
     * @param url a Redis URL, or any text
     * @return the text to show; {@code "null"} for null
     */
    public static String mask(String url) {
        if (url == null) {
            return "null";
        }
        // A query or fragment is never part of a URL the store takes, and other clients' URLs carry
        // passwords there (?password=...): hidden whole. Looked for only after the last '@': before it
        // everything is hidden as credentials anyway, and a password may hold '?' or '#'.
        int after = Math.max(0, url.lastIndexOf('@'));
        int query = url.indexOf('?', after);
        int fragment = url.indexOf('#', after);
        int cut = query < 0 ? fragment : fragment < 0 ? query : Math.min(query, fragment);
        String shown = cut < 0 ? masked(url) : masked(url.substring(0, cut)) + url.charAt(cut) + HIDDEN;
        return shown.replaceAll("\\p{Cntrl}", "?");
    }

    private static String masked(String url) {
        int schemeEnd = url.indexOf("://");
        int at = url.lastIndexOf('@');
        if (at >= 0) {
            int userStart = schemeEnd >= 0 && schemeEnd + 3 <= at ? schemeEnd + 3 : 0;
            return url.substring(0, userStart) + HIDDEN + url.substring(at);
        }
        int start = schemeEnd >= 0 ? schemeEnd + 3 : 0;
        int slash = url.indexOf('/', start);
        int end = slash < 0 ? url.length() : slash;
        if (schemeEnd < 0) {
            // No scheme (or a typo in it): the first ':' may end a scheme or a host; what follows it is
            // shown only if it is a port, with or without a database after it.
            int colon = url.indexOf(':');
            return colon < 0 || url.substring(colon + 1).matches("[0-9]*(/[0-9]*)?") ? url : url.substring(0, colon + 1) + HIDDEN;
        }
        for (int node = start; node <= end; ) {
            int comma = url.indexOf(',', node);
            int nodeEnd = comma < 0 || comma > end ? end : comma;
            int portStart = portStart(url, node, nodeEnd);
            // A port that is not a number, or any port after no host at all (redis://:123456), may be a password.
            if (portStart >= 0 && (!url.substring(portStart, nodeEnd).matches("[0-9]*") || portStart == node + 1)) {
                return url.substring(0, portStart) + HIDDEN;
            }
            node = nodeEnd + 1;
        }
        return url;
    }

    /** Where the port of the node in {@code [from, to)} starts, or -1 if it names none. */
    private static int portStart(String url, int from, int to) {
        int colon;
        if (from < to && url.charAt(from) == '[') {
            int close = url.indexOf(']', from);
            if (close < 0 || close >= to) {
                return -1;
            }
            colon = close + 1 < to && url.charAt(close + 1) == ':' ? close + 1 : -1;
        } else {
            colon = url.indexOf(':', from);
            colon = colon >= to ? -1 : colon;
        }
        return colon < 0 ? -1 : colon + 1;
    }
}
