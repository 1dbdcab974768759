package dev.ratelimit.example.cli;

import dev.ratelimit.InvalidConfigurationException;
import dev.ratelimit.config.DurationFormat;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Parsed {@code --name=value} flags: every name known, every value checked when read, errors naming
 * the flag and its value. {@code --help} and {@code -h} set {@link #help()}.
 */
public final class Flags {
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
                throw new UsageException("unknown argument \"" + clean(arg) + "\"; known: --" + String.join(", --", known));
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
        try {
            int n = Integer.parseInt(v);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw invalid(name, "must be a whole number from " + min + " to " + max);
    }

    /** A number in {@code [min, max]}. */
    public double decimal(String name, double otherwise, double min, double max) throws UsageException {
        String v = values.get(name);
        if (v == null) {
            return otherwise;
        }
        try {
            double n = Double.parseDouble(v);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw invalid(name, "must be a number from " + min + " to " + max);
    }

    /**
     * A duration such as {@code 500ms}, {@code 10s} or {@code 1m}, at least {@code min} and at most
     * {@link #MAX_DURATION} (so that it fits in nanoseconds and microseconds wherever it is used).
     */
    public Duration duration(String name, Duration otherwise, Duration min) throws UsageException {
        String v = values.get(name);
        if (v == null) {
            return otherwise;
        }
        Duration d;
        try {
            d = DurationFormat.parse(v, "--" + name);
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

    /** An error naming {@code --name} and its value. */
    public UsageException invalid(String name, String problem) {
        return new UsageException("--" + name + "=\"" + clean(values.getOrDefault(name, "")) + "\": " + problem);
    }

    private static String clean(String s) {
        return s.replaceAll("\\p{Cntrl}", "?");
    }
}
