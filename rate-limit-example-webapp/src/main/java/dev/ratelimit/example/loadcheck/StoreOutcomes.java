package dev.ratelimit.example.loadcheck;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A server's own count of its decisions, read from the example's {@code /metrics}: how many its
 * store made, and how many were made without it (local fallback, fail-open, a 503), which a client
 * cannot tell from the answers (a local fallback's headers look like the store's). A server without
 * that page (not the example app) counts as unknown, and so the whole reading is.
 */
record StoreOutcomes(long byStore, long withoutStore) {
    private static final Pattern DECISIONS = Pattern.compile("^ratelimit_decisions_total\\{([^}]*)} ([0-9.eE+]+)$");
    private static final Pattern WITHOUT = Pattern.compile("outcome=\"(failed_open|fallback_allowed|fallback_rejected|unavailable)\"");

    /** Each of {@code urls}' counts, in order, or empty when any of them has no readable {@code /metrics}. */
    static Optional<List<StoreOutcomes>> read(HttpClient http, List<URI> urls, Duration timeout) throws InterruptedException {
        List<StoreOutcomes> each = new ArrayList<>();
        for (URI url : urls) {
            Optional<StoreOutcomes> one = readOne(http, url.resolve("/metrics"), timeout);
            if (one.isEmpty()) {
                return Optional.empty();
            }
            each.add(one.get());
        }
        return Optional.of(each);
    }

    /**
     * The decisions one server made between {@code before} and this reading of it. A count that went
     * down says the server restarted meanwhile: it counts from zero again, as Prometheus' {@code
     * increase()} does, so what it decided before the restart is left out.
     */
    StoreOutcomes since(StoreOutcomes before) {
        return restartedSince(before) ? this : new StoreOutcomes(byStore - before.byStore, withoutStore - before.withoutStore);
    }

    /** Whether a count went down since {@code before}: the server restarted. */
    boolean restartedSince(StoreOutcomes before) {
        return byStore < before.byStore || withoutStore < before.withoutStore;
    }

    StoreOutcomes plus(StoreOutcomes other) {
        return new StoreOutcomes(byStore + other.byStore, withoutStore + other.withoutStore);
    }

    /** Counts the {@code ratelimit_decisions_total} series of a Prometheus text page. */
    static StoreOutcomes parse(String page) {
        long by = 0;
        long without = 0;
        for (String line : page.split("\n")) {
            Matcher m = DECISIONS.matcher(line.strip());
            if (m.matches()) {
                long count = (long) Double.parseDouble(m.group(2));
                if (WITHOUT.matcher(m.group(1)).find()) {
                    without += count;
                } else {
                    by += count;
                }
            }
        }
        return new StoreOutcomes(by, without);
    }

    private static Optional<StoreOutcomes> readOne(HttpClient http, URI metrics, Duration timeout) throws InterruptedException {
        try {
            HttpResponse<String> page = http.send(HttpRequest.newBuilder(metrics).timeout(timeout).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            return page.statusCode() == 200 && page.body().contains("ratelimit_decisions_total")
                    ? Optional.of(parse(page.body())) : Optional.empty();
        } catch (IOException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
