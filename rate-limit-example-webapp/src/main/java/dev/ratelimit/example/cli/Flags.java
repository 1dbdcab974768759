package dev.ratelimit.example.cli;

import dev.ratelimit.InvalidConfigurationException;
import dev.ratelimit.config.DurationFormat;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parsed {@code --name=value} flags: every name known, every value checked when read, errors naming
 * the flag and its value. {@code --help} and {@code -h} set {@link #help()}.
 */
public final class Flags {
    /** How an argument meant as a flag starts: its name, without what follows a space, ':' or '='. */
    private static final Pattern FLAG_NAME = Pattern.compile("-{1,2}[A-Za-z0-9_-]*");

    /**
     * A plain decimal number, ASCII digits with an optional point: what the settings document.
     * (Double.parseDouble also reads "0.5d", "0x1p-1", "5e-1" and "NaN".)
     */
    public static final String DECIMAL = "-?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)";

    /** The longest duration any flag takes. */
    public static final Duration MAX_DURATION = Duration.ofDays(1);
    private final Map<String, String> values;
    private final boolean help;

    private Flags(Map<String, String> values, boolean help) {
        this.values = values;
        this.help = help;
    }

    /** Parses {@code args}; {@code known} are the flag names without dashes. */
    public static Flags parse(String[] args, Set<String> known) throws UsageException {
        Map<String, String> values = new LinkedHashMap<>();
        boolean help = false;
        for (String arg : args) {
            if (arg.equals("--help") || arg.equals("-h")) {
                help = true;
                continue;
            }
            int eq = arg.indexOf('=');
            String name = arg.startsWith("--") ? arg.substring(2, eq < 0 ? arg.length() : eq) : null;
            if (name == null || !known.contains(name)) {
                throw new UsageException("unknown argument " + describe(arg) + "; known: --" + String.join(", --", known));
            }
            if (eq < 0) {
                throw new UsageException("--" + name + " needs a value: --" + name + "=...");
            }
            values.put(name, arg.substring(eq + 1).trim());
        }
        return new Flags(values, help);
    }

    /** Whether {@code --help} was given. */
    public boolean help() {
        return help;
    }

    /** The value of {@code --name}, or {@code otherwise}. */
    public String text(String name, String otherwise) {
        return values.getOrDefault(name, otherwise);
    }

    /** A whole number in {@code [min, max]}. */
    public int number(String name, int otherwise, int min, int max) throws UsageException {
        String v = values.get(name);
        if (v == null) {
            return otherwise;
        }
        if (v.matches("-?[0-9]{1,9}")) {
            int n = Integer.parseInt(v);
            if (n >= min && n <= max) {
                return n;
            }
        }
        throw invalid(name, "must be a whole number from " + min + " to " + max);
    }

    /** A number in {@code [min, max]}. */
    public double decimal(String name, double otherwise, double min, double max) throws UsageException {
        String v = values.get(name);
        if (v == null) {
            return otherwise;
        }
        if (v.matches(DECIMAL)) {
            double n = Double.parseDouble(v);
            if (n >= min && n <= max) {
                return n;
            }
        }
        throw invalid(name, "must be a number from " + min + " to " + max);
    }

    /**
     * A duration such as {@code 500ms}, {@code 10s} or {@code 1m} (or {@code 0}, which needs no unit),
     * at least {@code min} and at most {@link #MAX_DURATION} (so that it fits in nanoseconds and
     * microseconds wherever it is used).
     */
    public Duration duration(String name, Duration otherwise, Duration min) throws UsageException {
        String v = values.get(name);
        if (v == null) {
            return otherwise;
        }
        Duration d;
        try {
            // A bare 0 is what the usage texts write for "none" (--progress=0).
            d = v.equals("0") ? Duration.ZERO : DurationFormat.parse(v, "--" + name);
        } catch (InvalidConfigurationException e) {
            d = null;
        }
        if (d == null || d.compareTo(min) < 0) {
            throw invalid(name, "must be a duration of at least " + DurationFormat.format(min) + ", such as 500ms, 10s or 1m");
        }
        if (d.compareTo(MAX_DURATION) > 0) {
            throw invalid(name, "must be a duration of at most " + DurationFormat.format(MAX_DURATION));
        }
        return d;
    }

    /** {@code true} or {@code false}. */
    public boolean bool(String name, boolean otherwise) throws UsageException {
        String v = values.get(name);
        if (v == null) {
            return otherwise;
        }
        if (v.equals("true") || v.equals("false")) {
            return Boolean.parseBoolean(v);
        }
        throw invalid(name, "must be true or false");
    }

    /** An error naming {@code --name} and its value, a URL's user:password shown as {@code ***}. */
    public UsageException invalid(String name, String problem) {
        return new UsageException("--" + name + "=\"" + clean(hidingUserInfo(values.getOrDefault(name, ""))) + "\": " + problem);
    }

    /**
     * {@code text} with what lies between {@code ://} and the last '@' (a URL's user:password, even one
     * the URL parser refused) shown as {@code ***}; text without both unchanged.
     */
    public static String hidingUserInfo(String text) {
        int scheme = text.indexOf("://");
        int at = text.lastIndexOf('@');
        return scheme >= 0 && at > scheme ? text.substring(0, scheme + 3) + "***" + text.substring(at) : text;
    }

    /**
     * An unknown argument as an error may show it: its flag-like start only. Not a flag, it may be a
     * Redis URL or a key given without its flag (or after "--api-key= "), so never shown; a flag and
     * its value in one argument ("--redis-url redis://:pw@host", as a Kubernetes args list may pass
     * them, or a mistyped "--api-ky=sk-...") shows the flag's name.
     */
    public static String describe(String arg) {
        int eq = arg.indexOf('=');
        String name = eq < 0 ? arg : arg.substring(0, eq);
        Matcher flag = FLAG_NAME.matcher(name);
        if (!arg.startsWith("-") || !flag.lookingAt()) {
            return "of " + arg.length() + " characters (not shown: it is no --name=value flag, and may hold a password)";
        }
        return "\"" + flag.group() + "\"" + (flag.end() < name.length() ? " followed by " + (arg.length() - flag.end())
                + " characters (not shown: they may hold a password)" : "");
    }

    private static String clean(String s) {
        return s.replaceAll("\\p{Cntrl}", "?");
    }
}
