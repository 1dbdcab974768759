package dev.ratelimit.servlet;

import dev.ratelimit.Clock;
import dev.ratelimit.FailureMode;
import dev.ratelimit.InvalidConfigurationException;
import dev.ratelimit.RateLimitStore;
import dev.ratelimit.config.DurationFormat;
import dev.ratelimit.config.RateLimitConfig;
import dev.ratelimit.servlet.client.ForwardedHeader;
import dev.ratelimit.servlet.headers.HeaderStyle;
import dev.ratelimit.store.memory.MemoryStore;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletException;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads a {@code web.xml} filter's init-params into {@link Settings}. Every name is known (a typo is
 * an error, not a silently ignored option), every value is checked, and an error names the
 * init-param and its value (a Redis URL with its password masked). The defaults are documented in
 * the README's "The servlet filter" section and in {@link #DEFAULTS}.
 */
final class InitParams {
    /** Every init-param and its default, as documented. */
    static final Map<String, String> DEFAULTS;

    static {
        Map<String, String> d = new LinkedHashMap<>();
        d.put("config", "the bundled RateLimitConfig.defaults()");
        d.put("store", "memory");
        d.put("max-keys-per-limit", String.valueOf(MemoryStore.DEFAULT_MAX_KEYS_PER_LIMIT));
        d.put("failure-mode", "the Redis store's default (LOCAL_FALLBACK); for other failures FAIL_OPEN");
        d.put("fallback-share", "1.0 (the Redis store's default)");
        d.put("redis-key-prefix", "rl: (the Redis store's default)");
        d.put("redis-timeout", "100ms (the Redis store's default)");
        d.put("redis-client-key-secret", "none: client ids are hashed with plain SHA-256");
        d.put("redis-password-file", "none: the password is the store URL's");
        d.put("trusted-proxies", "none");
        d.put("forwarded-header", "X-Forwarded-For");
        d.put("api-key-header", RateLimitFilterBuilder.DEFAULT_API_KEY_HEADER);
        d.put("max-api-key-length", String.valueOf(RateLimitFilterBuilder.DEFAULT_MAX_API_KEY_LENGTH));
        d.put("ipv6-prefix-length", String.valueOf(Ipv6Networks.DEFAULT_PREFIX_LENGTH));
        d.put("header-style", "both");
        d.put("shadow", "false");
        d.put("dispatcher-types", "REQUEST");
        DEFAULTS = Collections.unmodifiableMap(d);
    }

    private static final Set<String> REDIS_ONLY = Set.of("fallback-share", "redis-key-prefix", "redis-timeout",
            "redis-client-key-secret", "redis-password-file");

    private final FilterConfig filterConfig;

    private InitParams(FilterConfig filterConfig) {
        this.filterConfig = filterConfig;
    }

    /** A value that is one placeholder, as a container that substitutes none leaves it: {@code ${RL_SECRET}}. */
    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{[^}]*}");

    /** The settings the init-params of {@code filterConfig} describe. */
    static Settings read(FilterConfig filterConfig) throws ServletException {
        return new InitParams(filterConfig).read();
    }

    private Settings read() throws ServletException {
        for (String name : Collections.list(filterConfig.getInitParameterNames())) {
            if (!DEFAULTS.containsKey(name)) {
                throw new ServletException(prefix() + "unknown init-param \"" + ThrottledLog.clean(name) + "\"; known: "
                        + String.join(", ", DEFAULTS.keySet()));
            }
            String value = param(name);
            // A generated secret may hold "${" (about 1 in 250 of 24 printable characters): only a secret that
            // is a placeholder as a whole is one.
            if (value != null && (name.equals("redis-client-key-secret") ? PLACEHOLDER.matcher(value).matches() : value.contains("${"))) {
                // GlassFish, Open Liberty and a standalone Jetty leave ${...} in web.xml as it is. Taken
                // literally, it would be a key prefix other instances do not share, or a secret anyone can read.
                throw invalid(name, name.equals("store") ? RedisParams.maskedUrl(value) : echoed(name),
                        "holds an unexpanded placeholder \"${...}\": this container did not substitute it (not every"
                                + " container does, see the README's section on yours); put the value itself, or register"
                                + " the filter in code");
            }
        }
        RateLimitFilterBuilder builder = RateLimitFilter.builder();
        String config = param("config");
        if (config != null) {
            loadConfig(builder, config);
        }
        String failureMode = param("failure-mode");
        FailureMode mode = null;
        if (failureMode != null) {
            mode = parse("failure-mode", failureMode, () -> FailureMode.valueOf(upperAscii(failureMode).replace('-', '_')),
                    "must be FAIL_OPEN, FAIL_CLOSED or LOCAL_FALLBACK");
            builder.failureMode(mode);
        }
        String trusted = param("trusted-proxies");
        if (trusted != null && !trusted.isBlank()) {
            List<String> cidrs = Arrays.stream(trusted.split(",", -1)).map(String::trim).toList();
            if (cidrs.contains("")) {
                // "," or a stray comma: not "no trusted proxies", which is leaving the param out
                throw invalid("trusted-proxies", trusted, "must be a comma-separated list of IP addresses or CIDR blocks");
            }
            apply("trusted-proxies", trusted, () -> builder.trustedProxies(cidrs));
        }
        String forwarded = param("forwarded-header");
        if (forwarded != null) {
            ForwardedHeader header = ForwardedHeader.forName(forwarded);
            if (header == null) {
                throw invalid("forwarded-header", forwarded, "must be X-Forwarded-For or Forwarded");
            }
            if (trusted == null || trusted.isBlank()) {
                throw invalid("forwarded-header", forwarded, "is read only from trusted proxies, but trusted-proxies is not set");
            }
            builder.forwardedHeader(header);
        }
        String apiKeyHeader = param("api-key-header");
        if (apiKeyHeader != null) {
            builder.apiKeyHeader(apiKeyHeader.trim());
        }
        String maxKeyLength = param("max-api-key-length");
        if (maxKeyLength != null) {
            builder.maxApiKeyLength(wholeNumber("max-api-key-length", maxKeyLength));
        }
        String ipv6Prefix = param("ipv6-prefix-length");
        if (ipv6Prefix != null) {
            int length = wholeNumber("ipv6-prefix-length", ipv6Prefix);
            apply("ipv6-prefix-length", ipv6Prefix, () -> builder.ipv6PrefixLength(length));
        }
        String style = param("header-style");
        if (style != null) {
            builder.headerStyle(parse("header-style", style, () -> HeaderStyle.valueOf(upperAscii(style)),
                    "must be x, ietf or both"));
        }
        String shadow = param("shadow");
        if (shadow != null) {
            builder.shadow(bool("shadow", shadow));
        }
        String dispatchers = param("dispatcher-types");
        if (dispatchers != null) {
            List<DispatcherType> types = new ArrayList<>();
            for (String type : dispatchers.split(",", -1)) { // -1: a stray comma is an empty entry, refused
                types.add(parse("dispatcher-types", dispatchers, () -> DispatcherType.valueOf(upperAscii(type)),
                        "must be a comma-separated list of REQUEST, FORWARD, INCLUDE, ASYNC, ERROR"));
            }
            builder.dispatcherTypes(types.get(0), types.subList(1, types.size()).toArray(new DispatcherType[0]));
        }
        builder.ownedStore(store(mode));
        try {
            return builder.settings(prefix());
        } catch (InvalidConfigurationException e) {
            String name = paramOf(e.path());
            String value = param(name);
            throw value != null ? invalid(name, value, e.problem())
                    : new ServletException(prefix() + "init-param " + name + ": " + ThrottledLog.clean(e.problem()), e);
        }
    }

    /** The value of init-param {@code name} as an error may show it: a secret never is. */
    private String echoed(String name) {
        return name.equals("redis-client-key-secret") ? "(hidden)" : param(name);
    }

    /** The store; {@code mode} is null when the init-param is absent (the Redis store's default applies). */
    private RateLimitStore store(FailureMode mode) throws ServletException {
        String store = param("store");
        String kind = store == null ? "memory" : store.trim();
        if (kind.equals("memory")) {
            for (String redisOnly : REDIS_ONLY) {
                if (param(redisOnly) != null) {
                    throw invalid(redisOnly, echoed(redisOnly), "applies only to a Redis store, but store is memory");
                }
            }
            if (mode == FailureMode.LOCAL_FALLBACK) {
                // Only the Redis store falls back; the filter alone would take it as FAIL_OPEN.
                throw invalid("failure-mode", param("failure-mode"), "LOCAL_FALLBACK applies only to a Redis store, but store is "
                        + "memory; use FAIL_OPEN or FAIL_CLOSED");
            }
            MemoryStore.Builder memory = MemoryStore.builder().clock(Clock.system());
            String maxKeys = param("max-keys-per-limit");
            if (maxKeys != null) {
                int n = wholeNumber("max-keys-per-limit", maxKeys);
                apply("max-keys-per-limit", maxKeys, () -> memory.maxKeysPerLimit(n));
            }
            return memory.build();
        }
        if (param("max-keys-per-limit") != null) {
            throw invalid("max-keys-per-limit", param("max-keys-per-limit"), "applies only to store=memory");
        }
        if (param("fallback-share") != null && mode != null && mode != FailureMode.LOCAL_FALLBACK) {
            throw invalid("fallback-share", param("fallback-share"), "applies only to failure-mode LOCAL_FALLBACK, but "
                    + "failure-mode is " + mode);
        }
        if (!RedisParams.isRedisUrl(kind)) {
            throw invalid("store", RedisParams.maskedUrl(kind), "must be memory or a Redis URL (redis://, rediss://, "
                    + "redis-sentinel://, redis-cluster://, rediss-cluster://)");
        }
        if ("".equals(param("redis-key-prefix"))) {
            // an empty <param-value> would put every key at the top level of a database others may share
            throw invalid("redis-key-prefix", "", "must not be empty; leave it out for the default rl:");
        }
        RedisParams redis = new RedisParams(kind, mode,
                optional("fallback-share", s -> parse("fallback-share", s, () -> decimal(s.trim()), "must be a number in (0, 1]")),
                param("redis-key-prefix"),
                optional("redis-timeout", s -> parse("redis-timeout", s, () -> DurationFormat.parse(s, "redis-timeout"),
                        "must be a duration such as 500ms or 2s")),
                param("redis-client-key-secret"), param("redis-password-file"));
        try {
            return redis.createStore(prefix());
        } catch (InvalidConfigurationException e) {
            String name = switch (e.path()) {
                case "fallbackShare" -> "fallback-share";
                case "keyPrefix" -> "redis-key-prefix";
                case "connectTimeout", "readTimeout" -> "redis-timeout";
                case "clientKeySecret" -> "redis-client-key-secret";
                case "passwordFile" -> "redis-password-file";
                default -> "store";
            };
            String value = name.equals("store") ? RedisParams.maskedUrl(kind) : RedisParams.masked(echoed(name));
            // The value is named once, before the problem: not again at its end, as the store's own message does.
            String problem = RedisParams.masked(e.problem()).replace("or set passwordFile to", "or set init-param redis-password-file to");
            for (String echo : new String[] {", was \"" + value + "\"", ", was " + value}) {
                if (problem.endsWith(echo)) {
                    problem = problem.substring(0, problem.length() - echo.length());
                    break;
                }
            }
            // No cause attached: its message might carry the URL's password.
            throw new ServletException(prefix() + "init-param " + name + "=\"" + value + "\": " + problem);
        } catch (IllegalArgumentException e) {
            throw new ServletException(prefix() + "init-param store=\"" + RedisParams.maskedUrl(kind) + "\": "
                    + RedisParams.masked(String.valueOf(e.getMessage())));
        }
    }

    /** Reads the configuration at {@code location} into {@code builder}, whose checks of it name the file too. */
    private void loadConfig(RateLimitFilterBuilder builder, String location) throws ServletException {
        String where = location.trim();
        if (where.isEmpty() || where.replaceFirst("^classpath:/?", "").isEmpty()) {
            // Path.of("") is the working directory: "cannot read it: Is a directory" would not say why.
            throw invalid("config", where, "must name a JSON file (a path, or classpath:<resource>); leave the init-param "
                    + "out for the bundled configuration");
        }
        try {
            if (where.startsWith("classpath:")) {
                String resource = where.substring("classpath:".length()).replaceFirst("^/", "");
                ClassLoader loader = Thread.currentThread().getContextClassLoader();
                InputStream found = loader == null ? null : loader.getResourceAsStream(resource);
                if (found == null) {
                    found = RateLimitFilter.class.getClassLoader().getResourceAsStream(resource);
                }
                if (found == null) {
                    throw invalid("config", where, "classpath resource not found");
                }
                try (InputStream in = found) {
                    builder.config(RateLimitConfig.fromJson(in, where));
                    return;
                }
            }
            builder.config(RateLimitConfig.fromJson(Path.of(where)));
        } catch (InvalidConfigurationException e) {
            // The file's own values (a method, a path) are quoted in the message: one log line still.
            throw new ServletException(prefix() + "init-param config=\"" + ThrottledLog.clean(where) + "\": "
                    + ThrottledLog.clean(String.valueOf(e.getMessage())), e);
        } catch (UncheckedIOException e) {
            // "cannot read rate-limit configuration <file>: no such file", or another reason
            throw new ServletException(prefix() + "init-param config=\"" + ThrottledLog.clean(where) + "\": "
                    + ThrottledLog.clean(String.valueOf(e.getMessage())), e);
        } catch (IOException | java.nio.file.InvalidPathException e) {
            throw new ServletException(prefix() + "init-param config=\"" + ThrottledLog.clean(where) + "\": cannot read it: "
                    + ThrottledLog.clean(String.valueOf(e.getMessage())), e);
        }
    }

    /**
     * The value of init-param {@code name} without surrounding whitespace, which {@code web.xml} layout
     * adds (a value on its own line): every value is read trimmed, a secret or key prefix included,
     * as the example app reads its environment.
     */
    private String param(String name) {
        String value = filterConfig.getInitParameter(name);
        return value == null ? null : value.trim();
    }

    private interface Parser<T> {
        T parse() throws Exception;
    }

    private interface Step {
        void run();
    }

    private interface Converter<T> {
        T convert(String value) throws ServletException;
    }

    private <T> T optional(String name, Converter<T> converter) throws ServletException {
        String value = param(name);
        return value == null ? null : converter.convert(value);
    }

    private <T> T parse(String name, String value, Parser<T> parser, String rule) throws ServletException {
        try {
            return parser.parse();
        } catch (Exception e) {
            throw invalid(name, value, rule);
        }
    }

    private void apply(String name, String value, Step step) throws ServletException {
        try {
            step.run();
        } catch (InvalidConfigurationException e) {
            throw invalid(name, value, e.problem());
        }
    }

    /**
     * {@code text} trimmed and in upper case, for matching a constant's name; refused when not ASCII,
     * since Unicode upper-casing would make a documented value of a look-alike ({@code \u0131etf} is
     * {@code IETF}, {@code reque\u017ft} is {@code REQUEST}).
     */
    private static String upperAscii(String text) {
        String trimmed = text.trim();
        if (!trimmed.chars().allMatch(c -> c < 0x80)) {
            throw new IllegalArgumentException("not ASCII");
        }
        return trimmed.toUpperCase(Locale.ROOT);
    }

    /** A plain decimal such as 0.5 (Double.parseDouble also takes "0.5d", "0x1p-1" and "5e-1"). */
    private static double decimal(String text) {
        if (!text.matches("[0-9]+(\\.[0-9]*)?|\\.[0-9]+")) {
            throw new NumberFormatException(text);
        }
        return Double.parseDouble(text);
    }

    /** ASCII digits only (Integer.parseInt also takes "+5" and other scripts' digits). */
    private int wholeNumber(String name, String value) throws ServletException {
        String digits = value.trim();
        if (!digits.matches("-?[0-9]+")) {
            throw invalid(name, value, "must be a whole number");
        }
        return parse(name, value, () -> Integer.parseInt(digits), digits.startsWith("-") ? "is out of range"
                : "is too large (at most " + Integer.MAX_VALUE + ")");
    }

    private boolean bool(String name, String value) throws ServletException {
        String v = value.trim().toLowerCase(Locale.ROOT);
        if (!v.equals("true") && !v.equals("false")) {
            throw invalid(name, value, "must be true or false");
        }
        return v.equals("true");
    }

    private ServletException invalid(String name, String value, String problem) {
        String shown = ThrottledLog.clean(value);
        if (shown.length() > 200) {
            shown = shown.substring(0, 200) + "...";
        }
        return new ServletException(prefix() + "init-param " + name + "=\"" + shown + "\": " + ThrottledLog.clean(problem));
    }

    private String prefix() {
        return "RateLimitFilter " + ThrottledLog.clean(String.valueOf(filterConfig.getFilterName())) + ": ";
    }

    /** The init-param behind a builder option named in an error. */
    private static String paramOf(String option) {
        return switch (option) {
            case "apiKeyHeader" -> "api-key-header";
            case "maxApiKeyLength" -> "max-api-key-length";
            default -> option.startsWith("trustedProxies") ? "trusted-proxies" : option;
        };
    }
}
