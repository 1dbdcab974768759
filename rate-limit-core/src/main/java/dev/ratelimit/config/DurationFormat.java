package dev.ratelimit.config;

import dev.ratelimit.Durations;
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
    /** The largest number of the short form {@link #parse} reads: 12 digits. */
    private static final long MAX_SHORT_NUMBER = 999_999_999_999L;

    private DurationFormat() {
    }

    /**
     * Parses {@code text}; errors name {@code path}.
     *
     * @param text the duration, surrounding white space ignored
     * @param path where the text sits in the configuration, for the error message
     * @return the duration
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

    /**
     * {@code d} in the shortest exact short form, e.g. {@code 1h} or {@code 1500ms}; in ISO-8601 (e.g.
     * {@code PT0.0000015S}) when no short form is exact: a negative duration, one that is not whole
     * microseconds, or one whose number would be longer than {@link #parse} reads. Either way
     * {@link #parse} reads it back.
     *
     * @param d the duration
     * @return the text
     */
    public static String format(Duration d) {
        if (d.isZero()) {
            return "0s"; // not "0d": every unit divides zero
        }
        if (d.isNegative() || d.getNano() % 1_000 != 0) {
            return d.toString();
        }
        long micros;
        try {
            micros = Durations.toMicros(d);
        } catch (ArithmeticException beyondALong) {
            return d.toString();
        }
        long[] sizes = {86_400_000_000L, 3_600_000_000L, 60_000_000L, 1_000_000L, 1_000L, 1L};
        String[] units = {"d", "h", "m", "s", "ms", "us"};
        for (int i = 0; i < sizes.length; i++) {
            if (micros % sizes[i] == 0) {
                long n = micros / sizes[i];
                return n > MAX_SHORT_NUMBER ? d.toString() : n + units[i];
            }
        }
        throw new AssertionError("every whole number of microseconds is whole in us");
    }
}
