package dev.ratelimit.example.server;

import java.util.Locale;

/**
 * Every setting of the executable example: an environment variable and the command-line flag that
 * overrides it ({@code --port=8081} beats {@code PORT=8080}). An empty value means the default.
 */
public enum Setting {
    PORT("PORT", "8080", "HTTP port; 0 picks a free one"),
    // Not HOST: tcsh exports HOST as the machine's name, which would move the listener off localhost unasked.
    HOST("RATE_LIMIT_HOST", "0.0.0.0", "address to listen on"),
    REDIS_URL("REDIS_URL", "unset: in-memory store",
            "share limits through Redis: redis://[user:password@]host:port[/db], rediss://... for TLS, "
                    + "redis-cluster://host1:port1,host2:port2, rediss-cluster://... for TLS, redis-sentinel://[user:password@]host1:port1[,host2:port2]/master[/db]"),
    CONFIG("RATE_LIMIT_CONFIG", "the bundled free/pro/enterprise tiers", "a JSON file replacing the bundled tiers"),
    FAILURE_MODE("RATE_LIMIT_FAILURE_MODE", "LOCAL_FALLBACK with Redis, else FAIL_OPEN",
            "when Redis (or anything else) cannot decide: FAIL_OPEN (allow), FAIL_CLOSED (503), LOCAL_FALLBACK "
                    + "(Redis only: decide in memory with a share of each limit)"),
    FALLBACK_SHARE("RATE_LIMIT_FALLBACK_SHARE", "1.0",
            "LOCAL_FALLBACK's share of each limit per instance, in (0, 1], e.g. 0.5 for two instances; Redis only"),
    REDIS_TIMEOUT("RATE_LIMIT_REDIS_TIMEOUT", "100ms", "Redis connect and read timeout, 1ms to 60s; Redis only"),
    REDIS_KEY_PREFIX("RATE_LIMIT_REDIS_KEY_PREFIX", "rl:",
            "prefix of every Redis key, so that deployments sharing one Redis database keep apart; 1 to 64 printable "
                    + "characters ending with ':', no spaces or braces; Redis only"),
    REDIS_CLIENT_KEY_SECRET("RATE_LIMIT_REDIS_CLIENT_KEY_SECRET", "none: plain SHA-256",
            "hash client ids in Redis keys with HMAC-SHA-256 under this secret (16+ characters, the same on every "
                    + "instance), so readers of Redis cannot test IP addresses against them; Redis only"),
    REDIS_PASSWORD_FILE("RATE_LIMIT_REDIS_PASSWORD_FILE", "none: the password in REDIS_URL",
            "read the Redis password from this file's first line at each login instead of from REDIS_URL "
                    + "(redis://user@host:port), so that replacing the file rotates it without a restart; Redis only"),
    MAX_KEYS_PER_LIMIT("RATE_LIMIT_MAX_KEYS_PER_LIMIT", "100000",
            "the most clients the in-memory store tracks per limit; at the cap the least-used are evicted "
                    + "(counted by ratelimit_evictions_total); in memory only"),
    TRUSTED_PROXIES("RATE_LIMIT_TRUSTED_PROXIES", "none",
            "comma-separated IP addresses and CIDR blocks whose X-Forwarded-For is believed, e.g. 10.0.0.0/8,127.0.0.1"),
    FILTER("RATE_LIMIT_FILTER", "on",
            "off serves /api/* without the rate-limit filter, to measure what the filter costs"),
    SHUTDOWN_TIMEOUT("SHUTDOWN_TIMEOUT", "10s", "how long in-flight requests may take to finish on SIGTERM, at most 1d");

    private final String env;
    private final String defaultText;
    private final String description;

    Setting(String env, String defaultText, String description) {
        this.env = env;
        this.defaultText = defaultText;
        this.description = description;
    }

    /** The environment variable, e.g. {@code RATE_LIMIT_CONFIG}. */
    public String env() {
        return env;
    }

    /** The flag, without its value, e.g. {@code --config}. */
    public String flag() {
        String base = env.startsWith("RATE_LIMIT_") ? env.substring("RATE_LIMIT_".length()) : env;
        return "--" + base.toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The default, in words. */
    public String defaultText() {
        return defaultText;
    }

    /** What it does. */
    public String description() {
        return description;
    }

    /** The text of {@code --help}. */
    static String usage() {
        StringBuilder s = new StringBuilder("Usage: java -jar rate-limit-example.jar [--name=value ...]\n"
                + "Each setting comes from a flag, else from the environment variable, else its default:\n");
        int flagWidth = 0;
        int envWidth = 0;
        for (Setting setting : values()) {
            flagWidth = Math.max(flagWidth, setting.flag().length() + "=...".length());
            envWidth = Math.max(envWidth, setting.env().length());
        }
        String line = "  %-" + flagWidth + "s  %-" + envWidth + "s  %s (default: %s)%n";
        for (Setting setting : values()) {
            s.append(String.format(line, setting.flag() + "=...", setting.env(), setting.description(), setting.defaultText()));
        }
        return s.toString();
    }
}
