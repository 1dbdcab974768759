package dev.ratelimit.example.client;

import java.net.http.HttpHeaders;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a response's headers say about the client's quota, read defensively: a value that does not
 * parse is ignored, never trusted and never a crash. Sources, best first: {@code Retry-After}
 * (seconds or an HTTP date, obsolete forms too); {@code RateLimit} ({@code r}, {@code t}) with
 * {@code RateLimit-Policy} ({@code q}, {@code w}) of the same item; {@code X-RateLimit-Remaining},
 * {@code X-RateLimit-Limit}, {@code X-RateLimit-Reset} (epoch seconds). A header that is absent is
 * unknown (-1), never 0: no headers, no pacing.
 *
 * @param retryAfterMicros the server's {@code Retry-After}, or -1
 * @param remaining        requests left, or -1
 * @param limit            the quota ({@code q} or {@code X-RateLimit-Limit}), or -1
 * @param resetMicros      time until the quota is fully back ({@code t} or {@code X-RateLimit-Reset} - now), or -1
 * @param windowMicros     the policy's window {@code w}, or -1
 */
record RateLimitHints(long retryAfterMicros, long remaining, long limit, long resetMicros, long windowMicros) {
    static final RateLimitHints NONE = new RateLimitHints(-1, -1, -1, -1, -1);
    private static final Pattern DIGITS = Pattern.compile("\\d{1,12}");
    /** The time of an HTTP-date at a leap second, e.g. {@code 23:59:60}. */
    private static final Pattern LEAP_SECOND = Pattern.compile("(\\d\\d:\\d\\d):60\\b");
    /** Longer fields are ignored rather than parsed. */
    private static final int MAX_FIELD = 4096;
    private static final long MICROS = 1_000_000L;
    /** asctime's HTTP-date form; unlike RFC 850's, it does not depend on the current year. */
    private static final DateTimeFormatter ASCTIME =
            DateTimeFormatter.ofPattern("EEE MMM ppd HH:mm:ss uuuu", Locale.US).withZone(ZoneOffset.UTC);
    /** A longer {@code Retry-After} is read as this many seconds (about 31,700 years): no overflow in micros. */
    private static final long MAX_RETRY_AFTER_SECONDS = 999_999_999_999L;

    /** Reads {@code headers} at {@code nowMicros} (for {@code X-RateLimit-Reset} and HTTP dates). */
    static RateLimitHints from(HttpHeaders headers, long nowMicros) {
        long retryAfter = headers.firstValue("Retry-After").map(v -> retryAfterMicros(v, nowMicros)).orElse(-1L);
        long remaining = -1;
        long limit = -1;
        long reset = -1;
        long window = -1;
        List<Item> policies = items(String.join(", ", headers.allValues("RateLimit-Policy")));
        Optional<Item> current = binding(items(String.join(", ", headers.allValues("RateLimit"))), policies);
        if (current.isPresent()) {
            remaining = current.get().param("r");
            reset = seconds(current.get().param("t"));
            String name = current.get().name();
            Optional<Item> policy = policies.stream().filter(i -> i.name().equals(name)).findFirst();
            if (policy.isPresent()) {
                limit = policy.get().param("q");
                window = seconds(policy.get().param("w"));
            }
        }
        if (remaining < 0) {
            remaining = number(headers.firstValue("X-RateLimit-Remaining"));
        }
        if (limit < 0) {
            limit = number(headers.firstValue("X-RateLimit-Limit"));
        }
        if (reset < 0) {
            long resetAt = number(headers.firstValue("X-RateLimit-Reset"));
            if (resetAt >= 0) {
                reset = Math.max(0, resetAt * MICROS - nowMicros);
            }
        }
        return new RateLimitHints(retryAfter, remaining, limit, reset, window);
    }

    /**
     * The item that binds: one with nothing left that is back last, else the one with the least left
     * (as a share of its policy's quota when known).
     */
    private static Optional<Item> binding(List<Item> items, List<Item> policies) {
        Comparator<Item> order = Comparator
                .comparing((Item i) -> i.param("r") == 0 ? 0 : 1)
                .thenComparing(i -> i.param("r") == 0 ? -(double) i.param("t") : share(i, policies));
        return items.stream().filter(i -> i.param("r") >= 0).min(order).or(() -> items.stream().findFirst());
    }

    /** What is left of {@code item}'s quota: {@code r/q} when its policy item gives {@code q}, else {@code r}. */
    private static double share(Item item, List<Item> policies) {
        long q = policies.stream().filter(p -> p.name().equals(item.name())).mapToLong(p -> p.param("q"))
                .filter(v -> v > 0).findFirst().orElse(-1);
        return q > 0 ? (double) item.param("r") / q : item.param("r");
    }

    /**
     * How long the server asks a refused client to wait: {@code Retry-After}, else, when nothing is
     * left, the time until the quota is back; -1 when it does not say.
     */
    long serverWaitMicros() {
        if (retryAfterMicros >= 0) {
            return retryAfterMicros;
        }
        return remaining == 0 && resetMicros >= 0 ? resetMicros : -1;
    }

    /**
     * The pause before the next request when the quota is low (at most {@code lowFraction} of the limit
     * left, or nothing): what is left spread over the time until the quota is back,
     * {@code t / (r + 1)}, but never slower than the policy's average rate {@code w / q}; 0 when the
     * quota is not low or the headers do not say enough.
     */
    long paceMicros(double lowFraction) {
        if (remaining < 0) {
            return 0;
        }
        // r / q, not lowFraction * q: the quotient of two integers rounds to the same double as the
        // fraction's decimal when they are equal (0.29 * 100 is 28.999999999999996; 29.0 / 100 is 0.29).
        boolean low = remaining == 0 || (limit > 0 && (double) remaining / limit <= lowFraction);
        if (!low) {
            return 0;
        }
        long pace = Long.MAX_VALUE;
        if (resetMicros >= 0) {
            pace = resetMicros / (remaining + 1);
        }
        if (windowMicros > 0 && limit > 0) {
            pace = Math.min(pace, windowMicros / limit);
        }
        return pace == Long.MAX_VALUE ? 0 : pace;
    }

    /** {@code Retry-After}: delta-seconds or an HTTP date in any of RFC 9110's three forms; -1 when neither. */
    static long retryAfterMicros(String value, long nowMicros) {
        String v = value.trim();
        if (!v.isEmpty() && v.chars().allMatch(c -> c >= '0' && c <= '9')) {
            // Any number of digits: a value too long for DIGITS is a very long wait, not no wait at all.
            String significant = v.replaceFirst("^0+(?=.)", "");
            return (significant.length() > 12 ? MAX_RETRY_AFTER_SECONDS : Long.parseLong(significant)) * MICROS;
        }
        if (v.length() > 64) {
            return -1;
        }
        // RFC 9110's time-of-day runs to 23:59:60 (a leap second): read it as the second after :59.
        Matcher leap = LEAP_SECOND.matcher(v);
        long extra = leap.find() ? 1 : 0;
        if (extra == 1) {
            v = leap.replaceFirst("$1:59");
        }
        for (DateTimeFormatter form : httpDateForms(nowMicros)) {
            try {
                long at = form.parse(v, Instant::from).getEpochSecond() + extra;
                // The parser takes years of up to nine digits: a date that far off is a very long wait,
                // not a product that overflows into no wait at all.
                long nowSeconds = Math.floorDiv(nowMicros, MICROS);
                if (at > nowSeconds + MAX_RETRY_AFTER_SECONDS) {
                    return MAX_RETRY_AFTER_SECONDS * MICROS;
                }
                return at < nowSeconds ? 0 : Math.max(0, at * MICROS - nowMicros);
            } catch (DateTimeParseException e) {
                // the next form
            }
        }
        return -1;
    }

    /**
     * IMF-fixdate, then the obsolete RFC 850 and asctime forms a recipient must still accept (GMT);
     * RFC 850's two-digit year is the one at most 50 years after now's, else the century before's.
     */
    private static List<DateTimeFormatter> httpDateForms(long nowMicros) {
        int year = Instant.ofEpochSecond(Math.floorDiv(nowMicros, MICROS)).atOffset(ZoneOffset.UTC).getYear();
        return List.of(DateTimeFormatter.RFC_1123_DATE_TIME,
                new DateTimeFormatterBuilder().appendPattern("EEEE, dd-MMM-").appendValueReduced(ChronoField.YEAR, 2, 2, year - 49)
                        .appendPattern(" HH:mm:ss 'GMT'").toFormatter(Locale.US).withZone(ZoneOffset.UTC),
                ASCTIME);
    }

    private static long number(Optional<String> value) {
        return value.map(String::trim).filter(v -> DIGITS.matcher(v).matches()).map(Long::parseLong).orElse(-1L);
    }

    private static long seconds(long value) {
        return value < 0 ? -1 : value * MICROS;
    }

    /** One member of a structured-field list: a name and its integer parameters. */
    record Item(String name, Map<String, Long> params) {
        long param(String key) {
            Long v = params.get(key);
            return v == null ? -1 : v;
        }
    }

    /**
     * The members of a structured-field list such as {@code "scan";q=10;w=10, "scan-1";q=1000;w=3600}
     * (RFC 8941, the subset these headers use: string or token names, integer parameters). Members
     * that do not parse are skipped.
     */
    static List<Item> items(String field) {
        List<Item> items = new ArrayList<>();
        if (field.length() > MAX_FIELD) {
            return items;
        }
        for (String member : split(field, ',')) {
            List<String> parts = split(member, ';');
            String name = parts.get(0).trim();
            if (name.length() >= 2 && name.startsWith("\"") && name.endsWith("\"")) {
                name = name.substring(1, name.length() - 1).replace("\\\"", "\"").replace("\\\\", "\\");
            } else if (name.isEmpty() || name.contains("\"")) {
                continue;
            }
            Map<String, Long> params = new HashMap<>();
            for (String param : parts.subList(1, parts.size())) {
                int eq = param.indexOf('=');
                if (eq > 0) {
                    String value = param.substring(eq + 1).trim();
                    if (DIGITS.matcher(value).matches()) {
                        params.put(param.substring(0, eq).trim(), Long.parseLong(value));
                    }
                }
            }
            items.add(new Item(name, params));
        }
        return items;
    }

    /** Splits on {@code separator} outside double-quoted strings. */
    private static List<String> split(String text, char separator) {
        List<String> parts = new ArrayList<>();
        StringBuilder part = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (quoted && c == '\\' && i + 1 < text.length()) {
                part.append(c).append(text.charAt(++i));
                continue;
            }
            if (c == '"') {
                quoted = !quoted;
            }
            if (c == separator && !quoted) {
                parts.add(part.toString());
                part.setLength(0);
            } else {
                part.append(c);
            }
        }
        parts.add(part.toString());
        return parts;
    }
}
