package dev.ratelimit.example.server;

import dev.ratelimit.FailureMode;
import dev.ratelimit.InvalidConfigurationException;
import dev.ratelimit.config.DurationFormat;
import dev.ratelimit.config.RateLimitConfig;
import dev.ratelimit.example.cli.Flags;
import dev.ratelimit.servlet.RateLimitFilter;
import dev.ratelimit.servlet.client.TrustedProxies;
import dev.ratelimit.store.redis.RedisStore;
import dev.ratelimit.store.redis.RedisUrlMask;

import java.io.UncheckedIOException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The executable example's settings, read from command-line flags and the environment (a flag wins;
 * see {@link Setting}) and validated: {@link #parse} fails with one line naming the first bad setting.
 *
 * @param configSource   where the tiers came from, for the start-up log
 * @param failureMode    empty for the defaults: the Redis store's (LOCAL_FALLBACK), the filter's (FAIL_OPEN)
 * @param fallbackShare  empty for the Redis store's default
 * @param redisTimeout   empty for the Redis store's default
 * @param redisKeyPrefix empty for the Redis store's default ({@code rl:})
 * @param clientKeySecret empty for the Redis store's plain SHA-256 client hash
 * @param redisPasswordFile empty for the password in the Redis URL
 * @param maxKeysPerLimit empty for the in-memory store's default
 * @param filterOn       false: no rate-limit filter is installed (to measure its cost)
 * @param help           {@code --help} was given: print the usage and stop
 */
record ExampleOptions(int port, String host, Optional<String> redisUrl, RateLimitConfig config, String configSource,
                      Optional<FailureMode> failureMode, Optional<Double> fallbackShare, Optional<Duration> redisTimeout,
                      Optional<String> redisKeyPrefix, Optional<String> clientKeySecret, Optional<Path> redisPasswordFile,
                      Optional<Integer> maxKeysPerLimit,
                      List<String> trustedProxies, Duration shutdownTimeout, boolean filterOn, boolean help) {
    /** The longest shutdown timeout: Jetty's stop timeout and the stop log must not overflow. */
    private static final Duration MAX_SHUTDOWN_TIMEOUT = Duration.ofDays(1);

    /** One setting's raw text and how it was given, for error messages. */
    private record Raw(Setting setting, String value, boolean fromFlag) {
        String named() {
            return (fromFlag ? setting.flag() : setting.env()) + "=\"" + shown() + "\"";
        }

        /** The value as an error may show it: a URL's password masked, the secret never. */
        private String shown() {
            return switch (setting) {
                case REDIS_URL -> printable(RedisUrlMask.mask(value));
                case REDIS_CLIENT_KEY_SECRET -> "(hidden)";
                default -> printable(value);
            };
        }

        OptionException invalid(String problem) {
            return new OptionException(named() + ": " + problem);
        }

        /** Refuses this setting without {@code REDIS_URL}: it only configures the Redis store. */
        void requireRedis(Optional<String> redisUrl) throws OptionException {
            if (redisUrl.isEmpty()) {
                throw invalid("applies only to a Redis store; set REDIS_URL too");
            }
        }
    }

    /** The options with the Redis URL's password masked and the secret hidden: safe to log. */
    @Override
    public String toString() {
        return "ExampleOptions[port=" + port + ", host=" + host + ", redisUrl=" + redisUrl.map(RedisUrlMask::mask)
                + ", configSource=" + configSource + ", failureMode=" + failureMode + ", fallbackShare=" + fallbackShare
                + ", redisTimeout=" + redisTimeout + ", redisKeyPrefix=" + redisKeyPrefix + ", clientKeySecret=" + clientKeySecret.map(x -> "(hidden)")
                + ", redisPasswordFile=" + redisPasswordFile
                + ", maxKeysPerLimit=" + maxKeysPerLimit + ", trustedProxies=" + trustedProxies + ", shutdownTimeout=" + shutdownTimeout + ", filterOn=" + filterOn + "]";
    }

    /** Reads {@code args} ({@code --name=value}, {@code --help}) over {@code env}. */
    static ExampleOptions parse(String[] args, Map<String, String> env) throws OptionException {
        Map<Setting, Raw> raw = new EnumMap<>(Setting.class);
        for (Setting s : Setting.values()) {
            String value = env.get(s.env());
            if (value != null && !value.isBlank()) {
                raw.put(s, new Raw(s, value.trim(), false));
            }
        }
        boolean help = false;
        for (String arg : args) {
            if (arg.equals("--help") || arg.equals("-h")) {
                help = true;
                continue;
            }
            int eq = arg.indexOf('=');
            String name = eq < 0 ? arg : arg.substring(0, eq);
            Setting setting = Arrays.stream(Setting.values()).filter(s -> s.flag().equals(name)).findFirst().orElse(null);
            if (setting == null) {
                throw new OptionException("unknown argument " + Flags.describe(arg) + "; known: --help, "
                        + String.join(", ", Arrays.stream(Setting.values()).map(Setting::flag).toList()));
            }
            if (eq < 0) {
                throw new OptionException(name + " needs a value, e.g. " + name + "=" + example(setting));
            }
            String value = arg.substring(eq + 1).trim();
            if (value.isEmpty()) {
                raw.remove(setting);
            } else {
                raw.put(setting, new Raw(setting, value, true));
            }
        }
        // --help answers whatever else is set, bad values included.
        return help ? build(new EnumMap<>(Setting.class), true) : build(raw, false);
    }

    private static ExampleOptions build(Map<Setting, Raw> raw, boolean help) throws OptionException {
        int port = 8080;
        Raw p = raw.get(Setting.PORT);
        if (p != null) {
            // ASCII digits only: Integer.parseInt also reads "+80" and other scripts' digits.
            port = p.value().matches("[0-9]{1,5}") ? Integer.parseInt(p.value()) : -1;
            if (port < 0 || port > 65_535) {
                throw p.invalid("must be a whole number from 0 to 65535");
            }
        }
        String host = raw.containsKey(Setting.HOST) ? raw.get(Setting.HOST).value() : "0.0.0.0";

        Optional<String> redisUrl = Optional.empty();
        Raw r = raw.get(Setting.REDIS_URL);
        if (r != null) {
            try {
                RedisStore.builder().url(r.value());
            } catch (InvalidConfigurationException e) {
                // The store's problem, without its own copy of the (masked) value.
                throw r.invalid(printable(e.problem().replaceFirst(", was .*$", "")));
            }
            redisUrl = Optional.of(r.value());
        }
        Optional<Path> redisPasswordFile = redisPasswordFile(raw, redisUrl);

        RateLimitConfig config;
        String configSource;
        Raw c = raw.get(Setting.CONFIG);
        if (c == null) {
            config = RateLimitConfig.defaults();
            configSource = "bundled free/pro/enterprise tiers";
        } else {
            try {
                config = RateLimitConfig.fromJson(Path.of(c.value()));
                // The filter's own checks (an allowlisted API key longer than the filter accepts...), so that their errors too name the file.
                RateLimitFilter.builder().config(config).build();
            } catch (InvalidConfigurationException e) {
                throw c.invalid(printable(e.getMessage()));
            } catch (UncheckedIOException | InvalidPathException e) {
                throw c.invalid("cannot read it (" + printable(String.valueOf(e.getCause() == null ? e.getMessage() : e.getCause())) + ")");
            }
            configSource = c.value();
        }

        Optional<FailureMode> mode = Optional.empty();
        Raw f = raw.get(Setting.FAILURE_MODE);
        if (f != null) {
            try {
                // ASCII only: Unicode upper-casing would make FAIL_OPEN of a look-alike ("fa\u0131l_open").
                if (!f.value().chars().allMatch(ch -> ch < 0x80)) {
                    throw new IllegalArgumentException(f.value());
                }
                mode = Optional.of(FailureMode.valueOf(f.value().toUpperCase(Locale.ROOT).replace('-', '_')));
            } catch (IllegalArgumentException e) {
                throw f.invalid("must be FAIL_OPEN, FAIL_CLOSED or LOCAL_FALLBACK");
            }
            if (mode.get() == FailureMode.LOCAL_FALLBACK && redisUrl.isEmpty()) {
                throw f.invalid("LOCAL_FALLBACK applies only to a Redis store; set REDIS_URL too");
            }
        }

        Optional<Double> share = Optional.empty();
        Raw s = raw.get(Setting.FALLBACK_SHARE);
        if (s != null) {
            // A plain decimal: Double.parseDouble also reads "0.5d", "0x1p-1" and "5e-1".
            double value = s.value().matches(Flags.DECIMAL) ? Double.parseDouble(s.value()) : Double.NaN;
            if (!(value > 0 && value <= 1)) {
                throw s.invalid("must be a number in (0, 1], e.g. 0.5 for two instances");
            }
            s.requireRedis(redisUrl);
            if (mode.isPresent() && mode.get() != FailureMode.LOCAL_FALLBACK) {
                throw s.invalid("applies only to the failure mode LOCAL_FALLBACK, but the failure mode is " + mode.get());
            }
            share = Optional.of(value);
        }

        Optional<Duration> redisTimeout = Optional.empty();
        Raw rt = raw.get(Setting.REDIS_TIMEOUT);
        if (rt != null) {
            Duration d = duration(rt, "must be a duration from 1ms to 60s, such as 100ms or 1s");
            if (d.getNano() % 1_000_000 != 0) {
                throw rt.invalid("must be whole milliseconds (Jedis waits in ms), from 1ms to 60s");
            }
            try {
                RedisStore.builder().connectTimeout(d).readTimeout(d);
            } catch (InvalidConfigurationException e) {
                throw rt.invalid("must be a duration from 1ms to 60s, such as 100ms or 1s");
            }
            redisTimeout = Optional.of(d);
            rt.requireRedis(redisUrl);
        }

        Optional<String> redisKeyPrefix = Optional.empty();
        Raw kp = raw.get(Setting.REDIS_KEY_PREFIX);
        if (kp != null) {
            try {
                RedisStore.builder().keyPrefix(kp.value());
            } catch (InvalidConfigurationException e) {
                throw kp.invalid(printable(e.problem()));
            }
            kp.requireRedis(redisUrl);
            redisKeyPrefix = Optional.of(kp.value());
        }

        Optional<String> clientKeySecret = Optional.empty();
        Raw ks = raw.get(Setting.REDIS_CLIENT_KEY_SECRET);
        if (ks != null) {
            try {
                RedisStore.builder().clientKeySecret(ks.value());
            } catch (InvalidConfigurationException e) {
                throw ks.invalid(e.problem());
            }
            ks.requireRedis(redisUrl);
            clientKeySecret = Optional.of(ks.value());
        }

        Optional<Integer> maxKeys = Optional.empty();
        Raw mk = raw.get(Setting.MAX_KEYS_PER_LIMIT);
        if (mk != null) {
            // ASCII digits only, as PORT; ten digits may still overflow an int, so parse as a long.
            long n = mk.value().matches("[0-9]{1,10}") ? Long.parseLong(mk.value()) : 0;
            if (n < 1 || n > Integer.MAX_VALUE) {
                throw mk.invalid("must be a whole number from 1 to " + Integer.MAX_VALUE);
            }
            if (redisUrl.isPresent()) {
                throw mk.invalid("applies only to the in-memory store; Redis keys expire by themselves (unset REDIS_URL)");
            }
            maxKeys = Optional.of((int) n);
        }

        List<String> proxies = List.of();
        Raw t = raw.get(Setting.TRUSTED_PROXIES);
        if (t != null) {
            // As the filter's trusted-proxies init-param: an empty entry is a mistake, not "no proxy"
            proxies = Arrays.stream(t.value().split(",", -1)).map(String::trim).toList();
            if (proxies.contains("")) {
                throw t.invalid("must be a comma-separated list of IP addresses or CIDR blocks");
            }
            try {
                TrustedProxies.of(proxies);
            } catch (InvalidConfigurationException e) {
                throw t.invalid(printable(e.problem()));
            }
        }

        Duration timeout = Duration.ofSeconds(10);
        Raw d = raw.get(Setting.SHUTDOWN_TIMEOUT);
        if (d != null) {
            timeout = duration(d, "must be a duration such as 500ms, 10s or 1m");
            if (timeout.isNegative()) {
                throw d.invalid("must not be negative");
            }
            if (timeout.getNano() % 1_000_000 != 0) {
                throw d.invalid("must be whole milliseconds (Jetty's stop timeout is in ms)");
            }
            if (timeout.compareTo(MAX_SHUTDOWN_TIMEOUT) > 0) {
                throw d.invalid("must be at most " + DurationFormat.format(MAX_SHUTDOWN_TIMEOUT));
            }
        }
        boolean filterOn = true;
        Raw fo = raw.get(Setting.FILTER);
        if (fo != null) {
            switch (fo.value().toLowerCase(Locale.ROOT)) {
                case "on" -> filterOn = true;
                case "off" -> filterOn = false;
                default -> throw fo.invalid("must be on or off");
            }
        }
        return new ExampleOptions(port, host, redisUrl, config, configSource, mode, share, redisTimeout, redisKeyPrefix, clientKeySecret,
                redisPasswordFile, maxKeys, proxies,
                timeout, filterOn, help);
    }

    /**
     * The password file, read once to check it (the store reads it again at each login), and the URL's
     * credentials checked against it: a URL naming a user needs a password, in it or in the file, not both.
     */
    private static Optional<Path> redisPasswordFile(Map<Setting, Raw> raw, Optional<String> redisUrl) throws OptionException {
        Raw pf = raw.get(Setting.REDIS_PASSWORD_FILE);
        Raw url = raw.get(Setting.REDIS_URL);
        Path file = null;
        if (pf != null) {
            pf.requireRedis(redisUrl);
            try {
                file = Path.of(pf.value());
            } catch (InvalidPathException e) {
                throw pf.invalid("must name the file holding the Redis password on its first line");
            }
        }
        if (redisUrl.isEmpty()) {
            return Optional.empty();
        }
        try {
            RedisStore.Builder store = RedisStore.builder().url(redisUrl.get());
            if (file != null) {
                store.passwordFile(file);
            }
            store.build().close(); // connects to nothing: checks the options only
        } catch (InvalidConfigurationException e) {
            throw (e.path().equals("passwordFile") ? pf : url).invalid(printable(e.problem().replaceFirst("[,;] was .*$", "")
                    .replace("or set passwordFile to", "or set " + Setting.REDIS_PASSWORD_FILE.env() + " (" + Setting.REDIS_PASSWORD_FILE.flag() + ") to")));
        }
        return Optional.ofNullable(file);
    }

    /** {@code raw}'s value as a duration, or an error that says {@code problem}. */
    private static Duration duration(Raw raw, String problem) throws OptionException {
        try {
            return DurationFormat.parse(raw.value(), raw.setting().env());
        } catch (InvalidConfigurationException e) {
            throw raw.invalid(problem);
        }
    }

    /** {@code text} without control characters (a value goes into one log line). */
    private static String printable(String text) {
        return text.replaceAll("\\p{Cntrl}", "?");
    }

    private static String example(Setting s) {
        return switch (s) {
            case PORT -> "8081";
            case HOST -> "127.0.0.1";
            case REDIS_URL -> "redis://localhost:6379";
            case CONFIG -> "rate-limits.json";
            case FAILURE_MODE -> "FAIL_CLOSED";
            case FALLBACK_SHARE -> "0.5";
            case REDIS_TIMEOUT -> "250ms";
            case REDIS_KEY_PREFIX -> "shop:";
            case REDIS_CLIENT_KEY_SECRET -> "a-long-random-secret";
            case REDIS_PASSWORD_FILE -> "/run/secrets/redis-password";
            case MAX_KEYS_PER_LIMIT -> "500000";
            case TRUSTED_PROXIES -> "10.0.0.0/8";
            case FILTER -> "off";
            case SHUTDOWN_TIMEOUT -> "30s";
        };
    }
}
