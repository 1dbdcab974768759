package dev.ratelimit.store.redis;

import dev.ratelimit.InvalidConfigurationException;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A parsed Redis URL: where Redis is, how to log in, and which topology it has.
 *
 * <pre>
 * redis://[user:password@]host[:port][/db]                     one node (port 6379, db 0 by default)
 * rediss://...                                                   the same over TLS
 * redis-cluster://[user:password@]host1:port1,host2:port2,...    Redis Cluster, from any seed nodes
 * rediss-cluster://...                                           the same over TLS
 * redis-sentinel://[user:password@]host1:port1,host2:port2/masterName[/db]
 * </pre>
 * One trailing {@code /} is ignored. User and password may be percent-encoded; {@code user@} (no password) names a user
 * whose password is read from a file ({@code RedisStore.Builder#passwordFile}); {@code :password@} alone (no user) logs in as the default
 * user. An IPv6 host is written in brackets, {@code [::1]:6379}, a zone id after {@code %25}
 * ({@code [fe80::1%25eth0]}). A {@code ${...}} placeholder is
 * refused, not expanded. Errors name the URL as {@link RedisUrlMask} shows it.
 *
 * @param kind      the topology
 * @param tls       whether connections use TLS
 * @param user      the ACL user, or null
 * @param password  the password, or null
 * @param nodes     the node (one), the cluster seed nodes, or the sentinels
 * @param database  the database number (always 0 for a cluster)
 * @param master    the sentinel master name, or null
 */
record RedisUrl(Kind kind, boolean tls, String user, String password, List<Node> nodes, int database, String master) {

    /** The topology a URL names. */
    enum Kind { STANDALONE, CLUSTER, SENTINEL }

    /** One host and port. */
    record Node(String host, int port) {
        @Override
        public String toString() {
            return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
        }
    }

    private static final int DEFAULT_PORT = 6379;
    private static final int DEFAULT_SENTINEL_PORT = 26379;

    /** Parses {@code url}; the exception names the field {@code url} and the masked value. */
    static RedisUrl parse(String url) {
        if (url == null || url.isBlank()) {
            throw new InvalidConfigurationException("url", "must be set, was " + (url == null ? "null" : "\"\""));
        }
        if (url.contains("${")) {
            // Copied from a config file that did not expand it, it would become the password or host.
            throw bad(url, "holds an unexpanded placeholder \"${...}\": nothing here expands it; put the value"
                    + " itself in the URL (a literal \"${\" percent-encoded as %24%7B) or build the URL in code");
        }
        int schemeEnd = url.indexOf("://");
        if (schemeEnd < 0) {
            throw bad(url, "must start with redis://, rediss://, redis-cluster://, rediss-cluster:// or redis-sentinel://");
        }
        String scheme = url.substring(0, schemeEnd).toLowerCase(Locale.ROOT);
        Kind kind;
        boolean tls;
        switch (scheme) {
            case "redis" -> { kind = Kind.STANDALONE; tls = false; }
            case "rediss" -> { kind = Kind.STANDALONE; tls = true; }
            case "redis-cluster" -> { kind = Kind.CLUSTER; tls = false; }
            case "rediss-cluster" -> { kind = Kind.CLUSTER; tls = true; }
            case "redis-sentinel" -> { kind = Kind.SENTINEL; tls = false; }
            // Echo the scheme only if it looks like one: text before "://" may hold credentials.
            default -> throw bad(url, "has an unknown scheme" + (scheme.matches("[a-z][a-z0-9+.-]*") ? " \"" + scheme + "\"" : "")
                    + "; use redis, rediss, redis-cluster, rediss-cluster or redis-sentinel");
        }
        String rest = url.substring(schemeEnd + 3);
        if (rest.indexOf('?') >= 0 || rest.indexOf('#') >= 0) {
            throw bad(url, "must not have a query or fragment: options such as timeouts are the store's settings, not the URL's");
        }
        String user = null;
        String password = null;
        int at = rest.lastIndexOf('@');
        if (at >= 0) {
            String userInfo = rest.substring(0, at);
            int innerAt = userInfo.indexOf('@');
            if (innerAt >= 0 && userInfo.indexOf(',', innerAt) >= 0) {
                // u:p@h1,u:p@h2 read up to the last '@' would be one password "p@h1,u:p" and one node.
                throw bad(url, "must write credentials once, before the first host: scheme://user:password@host1,host2"
                        + " (percent-encode an '@' or ',' in the password)");
            }
            rest = rest.substring(at + 1);
            int colon = userInfo.indexOf(':');
            if (colon < 0 && userInfo.isEmpty()) {
                throw bad(url, "must write credentials as user:password@ or :password@");
            }
            // user@ alone: a user whose password the store reads from a file (RedisStore.Builder#passwordFile).
            user = colon == 0 ? null : decode(url, colon < 0 ? userInfo : userInfo.substring(0, colon));
            password = colon < 0 ? null : decode(url, userInfo.substring(colon + 1));
        }
        int slash = rest.indexOf('/');
        String hostList = slash < 0 ? rest : rest.substring(0, slash);
        String path = slash < 0 ? "" : rest.substring(slash + 1);
        // One trailing '/' is nothing, as after the host: redis://host/2/ and .../mymaster/ as well as redis://host/.
        path = path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        int defaultPort = kind == Kind.SENTINEL ? DEFAULT_SENTINEL_PORT : DEFAULT_PORT;
        List<Node> nodes = new ArrayList<>();
        for (String hostPort : hostList.split(",", -1)) {
            nodes.add(node(url, hostPort, defaultPort));
        }
        if (kind == Kind.STANDALONE && nodes.size() > 1) {
            throw bad(url, "names " + nodes.size() + " hosts; list several only with redis-cluster:// or redis-sentinel://");
        }
        String[] segments = path.isEmpty() ? new String[0] : path.split("/", -1);
        int database = 0;
        String master = null;
        switch (kind) {
            case STANDALONE -> {
                if (segments.length > 1) {
                    throw bad(url, "must have at most one path segment, the database number");
                }
                database = segments.length == 1 ? database(url, segments[0]) : 0;
            }
            case CLUSTER -> {
                if (segments.length > 0) {
                    throw bad(url, "must not name a database: Redis Cluster has only database 0");
                }
            }
            case SENTINEL -> {
                if (segments.length == 0 || segments.length > 2 || segments[0].isEmpty()) {
                    throw bad(url, "must name the master: redis-sentinel://host:port,.../masterName[/db]");
                }
                master = decode(url, segments[0]);
                database = segments.length == 2 ? database(url, segments[1]) : 0;
            }
        }
        return new RedisUrl(kind, tls, user, password, List.copyOf(nodes), database, master);
    }

    /** {@code url} in quotes as {@link RedisUrlMask} shows it, safe to log and to put in messages. */
    static String mask(String url) {
        return url == null ? "null" : "\"" + RedisUrlMask.mask(url) + "\"";
    }

    private static Node node(String url, String hostPort, int defaultPort) {
        String host;
        String portText = null;
        boolean bracketed = hostPort.startsWith("[");
        if (bracketed) {
            int close = hostPort.indexOf(']');
            if (close < 0) {
                throw bad(url, "has an unclosed IPv6 bracket in \"" + hostPort + "\"");
            }
            // A zone id follows "%25" in a URL (RFC 6874), a bare '%' where Java reads the address.
            host = hostPort.substring(1, close).replace("%25", "%");
            String after = hostPort.substring(close + 1);
            if (!after.isEmpty()) {
                if (!after.startsWith(":")) {
                    throw bad(url, "has junk after the IPv6 address in \"" + hostPort + "\"");
                }
                portText = after.substring(1);
            }
        } else {
            int colon = hostPort.lastIndexOf(':');
            host = colon < 0 ? hostPort : hostPort.substring(0, colon);
            portText = colon < 0 ? null : hostPort.substring(colon + 1);
        }
        // Outside brackets a ':' would be taken for the port's (host ":" and port 1 for "::1") and a
        // '%' would be looked up as it is, not decoded: only names and IPv4 addresses.
        if (host.isEmpty() || !host.matches(bracketed ? "[A-Za-z0-9._:%-]+" : "[A-Za-z0-9._-]+")) {
            // The host alone, and only without a ':' outside brackets: a URL whose host was left out
            // (redis://:password, redis://user:pass:word) has the password in the port, or part of it in the host.
            throw bad(url, "has an invalid host" + (bracketed || host.indexOf(':') < 0 ? " \"" + host.replaceAll("\\p{Cntrl}", "?") + "\"" : "")
                    + " (a name or an IPv4 address; IPv6 addresses go in brackets, [::1]:6379)");
        }
        int port = defaultPort;
        if (portText != null) {
            // ASCII digits only: Integer.parseInt also reads "+6379" and other scripts' digits.
            port = portText.matches("[0-9]{1,5}") ? Integer.parseInt(portText) : -1;
            if (port < 1 || port > 65535) {
                // A port that is not a number may be a password that lost its '@' and host: not echoed.
                throw bad(url, (portText.matches("[0-9]+") ? "has an invalid port \"" + portText + "\"" : "has a port that is not a number")
                        + " (must be 1-65535)");
            }
        }
        return new Node(host, port);
    }

    private static int database(String url, String text) {
        int db;
        db = text.matches("[0-9]{1,9}") ? Integer.parseInt(text) : -1;
        if (db < 0) {
            throw bad(url, "has an invalid database \"" + text.replaceAll("\\p{Cntrl}", "?") + "\" (must be a number >= 0)");
        }
        return db;
    }

    private static String decode(String url, String text) {
        try {
            return URLDecoder.decode(text.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw bad(url, "has invalid percent-encoding in its credentials or master name");
        }
    }

    private static InvalidConfigurationException bad(String url, String problem) {
        return new InvalidConfigurationException("url", problem + ", was " + mask(url));
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder();
        s.append(switch (kind) {
            case STANDALONE -> tls ? "rediss://" : "redis://";
            case CLUSTER -> tls ? "rediss-cluster://" : "redis-cluster://";
            case SENTINEL -> "redis-sentinel://";
        });
        if (password != null || user != null) {
            // As RedisUrlMask shows a URL: one rule for every line that names one.
            s.append("***@");
        }
        for (int i = 0; i < nodes.size(); i++) {
            s.append(i == 0 ? "" : ",").append(nodes.get(i));
        }
        if (master != null) {
            s.append('/').append(master);
        }
        if (database != 0) {
            s.append('/').append(database);
        }
        // A decoded user or master name may hold CR/LF; this text goes into the store's log lines.
        return s.toString().replaceAll("\\p{Cntrl}", "?");
    }
}
