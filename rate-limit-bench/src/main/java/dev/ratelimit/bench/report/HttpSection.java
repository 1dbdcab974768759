package dev.ratelimit.bench.report;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The HTTP table: wrk against the example app with no filter, the in-memory filter and the Redis
 * filter. The variants take turns over several rounds ({@code http-<variant>-<round>.txt}); a row is
 * the variant's median round, so one slow spell of a shared machine does not decide a ratio.
 */
final class HttpSection {
    /** Variants in table order. */
    static final List<String> VARIANTS = List.of("nofilter", "memory", "redis");
    private static final int MAX_ROUNDS = 20;

    private static final Pattern RPS = Pattern.compile("Requests/sec:\\s+([0-9.]+)");
    private static final Pattern NON_2XX = Pattern.compile("Non-2xx or 3xx responses:\\s+([0-9]+)");
    private static final Pattern TOTAL = Pattern.compile("([0-9]+) requests in");
    /** Appended by the script from the app's {@code /metrics} (over warm-up and measurement). */
    private static final Pattern BY_STORE = Pattern.compile("# decisions by the store: ([0-9]+), without it: ([0-9]+)");

    private final Results results;

    HttpSection(Results results) {
        this.results = results;
    }

    /**
     * One wrk run. {@code byStore} and {@code withoutStore} count the app's decisions made by its store
     * and those that were not (failed open, a local fallback, unavailable), -1 when the app published
     * none (no filter, or a result from before the script recorded them).
     */
    record Run(String label, double rps, double p50Millis, double p99Millis, long requests, long non2xx,
               long byStore, long withoutStore) {
    }

    /** The variant's median round by requests per second (the lower middle one of an even count). */
    Optional<Run> run(String variant) {
        List<Run> rounds = rounds(variant);
        return rounds.isEmpty() ? Optional.empty() : Optional.of(rounds.get((rounds.size() - 1) / 2));
    }

    /** The variant's rounds, slowest first. */
    List<Run> rounds(String variant) {
        List<Run> rounds = new ArrayList<>();
        for (int round = 1; round <= MAX_ROUNDS; round++) {
            results.text("http-" + variant + "-" + round + ".txt").map(HttpSection::parse)
                    .filter(r -> !Double.isNaN(r.rps())).ifPresent(rounds::add);
        }
        rounds.sort(Comparator.comparingDouble(Run::rps));
        return rounds;
    }

    static Run parse(String wrk) {
        String label = "";
        for (String line : wrk.split("\n")) {
            if (line.startsWith("# label:")) {
                label = line.substring("# label:".length()).trim();
            }
        }
        Matcher store = BY_STORE.matcher(wrk);
        boolean counted = store.find();
        return new Run(label, first(RPS, wrk), percentile(wrk, "50%"), percentile(wrk, "99%"),
                (long) first(TOTAL, wrk), Double.isNaN(first(NON_2XX, wrk)) ? 0 : (long) first(NON_2XX, wrk),
                counted ? Long.parseLong(store.group(1)) : -1, counted ? Long.parseLong(store.group(2)) : -1);
    }

    private static double first(Pattern p, String text) {
        Matcher m = p.matcher(text);
        return m.find() ? Double.parseDouble(m.group(1)) : Double.NaN;
    }

    /** A line of wrk's latency distribution, e.g. {@code 99%    3.20ms}, in milliseconds. */
    static double percentile(String wrk, String which) {
        Matcher m = Pattern.compile("^\\s*" + Pattern.quote(which) + "\\s+([0-9.]+)(us|ms|s)\\s*$", Pattern.MULTILINE).matcher(wrk);
        if (!m.find()) {
            return Double.NaN;
        }
        double v = Double.parseDouble(m.group(1));
        return switch (m.group(2)) {
            case "us" -> v / 1000;
            case "s" -> v * 1000;
            default -> v;
        };
    }

    void write(Markdown md) {
        md.heading(2, "HTTP: the example app under wrk");
        if (VARIANTS.stream().allMatch(v -> run(v).isEmpty())) {
            md.paragraph("Not run" + results.skipped("http").map(s -> ": " + s).orElse("."));
            return;
        }
        results.text("http-setup.txt").ifPresent(s -> md.paragraph(s.strip()));
        Optional<Run> base = run("nofilter");
        Markdown.Table table = new Markdown.Table(List.of("Variant", "Requests/s (median round)", "Rounds: slowest, fastest",
                "p50", "p99", "Non-2xx (all rounds)", "Decided without the store (all rounds)", "vs no filter"));
        for (String v : VARIANTS) {
            List<Run> rounds = rounds(v);
            if (rounds.isEmpty()) {
                continue;
            }
            Run r = run(v).orElseThrow();
            long non2xx = rounds.stream().mapToLong(Run::non2xx).sum();
            long requests = rounds.stream().mapToLong(Run::requests).sum();
            table.row(List.of(r.label(), Markdown.rate(r.rps()),
                    rounds.size() + ": " + Markdown.rate(rounds.get(0).rps()) + ", " + Markdown.rate(rounds.get(rounds.size() - 1).rps()),
                    millis(r.p50Millis()), millis(r.p99Millis()), String.format(Locale.ROOT, "%,d of %,d", non2xx, requests),
                    withoutStoreCell(rounds), base.map(b -> share(r.rps() / b.rps())).orElse("n/a")));
        }
        md.table(table);
        List<String> lost = lostRounds();
        if (!lost.isEmpty() || results.skipped("http").isPresent()) {
            md.paragraph("Not every round was measured: the rows above are the medians of the rounds that were"
                    + (lost.isEmpty() ? "" : "; no result from " + String.join(", ", lost))
                    + results.skipped("http").map(s -> "; the script said: " + s).orElse("") + ".");
        }
    }

    /**
     * The rounds up to the last one any variant ran that left no requests per second (wrk failed, or
     * the app did not start and left no output), e.g. {@code memory round 3}.
     */
    private List<String> lostRounds() {
        int last = 0;
        for (String variant : VARIANTS) {
            for (int round = 1; round <= MAX_ROUNDS; round++) {
                if (results.text("http-" + variant + "-" + round + ".txt").isPresent()) {
                    last = Math.max(last, round);
                }
            }
        }
        List<String> lost = new ArrayList<>();
        for (String variant : VARIANTS) {
            for (int round = 1; round <= last; round++) {
                if (results.text("http-" + variant + "-" + round + ".txt").map(HttpSection::parse).filter(r -> !Double.isNaN(r.rps())).isEmpty()) {
                    lost.add(variant + " round " + round);
                }
            }
        }
        return lost;
    }

    /** A share with one decimal ({@code 89.8%}): the 10% target's bar must not hide in the rounding. */
    private static String share(double share) {
        return Double.isNaN(share) ? "n/a" : String.format(Locale.ROOT, "%.1f%%", share * 100);
    }

    /**
     * The decisions of the rounds that counted them not made by the store, of all their decisions (over
     * warm-up and measurement): under the example's LOCAL_FALLBACK a failing Redis still answers 2xx.
     */
    private static String withoutStoreCell(List<Run> rounds) {
        List<Run> counted = rounds.stream().filter(r -> r.withoutStore() >= 0).toList();
        if (counted.isEmpty()) {
            return "n/a";
        }
        long without = counted.stream().mapToLong(Run::withoutStore).sum();
        long all = without + counted.stream().mapToLong(Run::byStore).sum();
        return String.format(Locale.ROOT, "%,d of %,d", without, all)
                + (counted.size() < rounds.size() ? " (" + counted.size() + " of " + rounds.size() + " rounds counted)" : "");
    }

    /** The decisions of {@code variant}'s rounds that its store did not make (0 when none were counted). */
    long withoutStore(String variant) {
        return rounds(variant).stream().mapToLong(r -> Math.max(0, r.withoutStore())).sum();
    }

    /** Every non-2xx answer of {@code variant}'s rounds. */
    long non2xx(String variant) {
        return rounds(variant).stream().mapToLong(Run::non2xx).sum();
    }

    private static String millis(double ms) {
        return Double.isNaN(ms) ? "n/a" : String.format(Locale.ROOT, "%.2f ms", ms);
    }
}
