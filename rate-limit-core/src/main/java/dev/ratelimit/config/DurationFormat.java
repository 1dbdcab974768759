package dev.ratelimit.config;

import dev.ratelimit.InvalidConfigurationException;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations in configuration: a whole number and a unit ({@code 500ms}, {@code 10s}, {@code 1m},
 * {@code 1h}, {@code 1d}, also {@code us}) or ISO-8601 ({@code PT1S}).
 */
public final class DurationFormat {
    private static final Pattern SHORT = Pattern.compile("(\\d+)(us|ms|s|m|h|d)");

    private DurationFormat() {
    }

    /**
     * Parses {@code text}; errors name {@code path}.
     *
     * @throws InvalidConfigurationException when the text is neither form
     */
    public static Duration parse(String text, String path) {
        if (text == null) {
            throw new InvalidConfigurationException(path, "must be a duration such as 500ms, 2s or PT2S, was null");
        }
        Matcher m = SHORT.matcher(text.trim());
        if (m.matches()) {
            if (m.group(1).length() > 12) {
                // 12 digits hold every duration a setting accepts in ms or larger units (400 days at most is
                // 34,560,000,000 ms); a longer one in µs is written in a larger unit.
                throw new InvalidConfigurationException(path, "must be a duration of at most 12 digits, was \"" + text + "\"");
            }
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "us" -> Duration.ofNanos(n * 1_000);
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
        }
        try {
            return Duration.parse(text.trim());
        } catch (DateTimeParseException e) {
            throw new InvalidConfigurationException(path, "must be a duration such as 500ms, 10s, 1m, 1h, 1d or PT1S, was \"" + text + "\"");
        }
    }

    /** {@code d} in the shortest exact short form, e.g. {@code 1h} or {@code 1500ms}. */
    public static String format(Duration d) {
        long micros = d.toNanos() / 1_000;
        if (micros == 0) {
            return "0s"; // not "0d": every unit divides zero
        }
        long[] sizes = {86_400_000_000L, 3_600_000_000L, 60_000_000L, 1_000_000L, 1_000L};
        String[] units = {"d", "h", "m", "s", "ms"};
        for (int i = 0; i < sizes.length; i++) {
            if (micros % sizes[i] == 0) {
                return micros / sizes[i] + units[i];
            }
        }
        return micros + "us";
    }
}
