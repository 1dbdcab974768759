package dev.ratelimit.example.loadcheck;

import dev.ratelimit.Policy;
import dev.ratelimit.example.limits.AdmissionBound;
import dev.ratelimit.example.limits.PolicyText;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What a load check saw, per tier and endpoint, and whether any client was admitted more than its
 * limit allows over its own interval (first request sent to last answer received), or, for the
 * windowed algorithms, in any one window.
 */
final class LoadReport {
    /**
     * One tier and endpoint.
     *
     * @param allowedPerSecond  admissions per second per client, averaged over the clients
     * @param limitPerSecond    the configured sustained rate per client
     * @param worstAllowed      admissions of the client closest to (or furthest over) its bound
     * @param worstBound        that client's bound
     * @param p50Micros         median latency
     * @param p99Micros         99th percentile latency
     */
    record Row(String tier, String endpoint, String limit, int clients, long sent, long allowed, long rejected, long other,
               double allowedPerSecond, double limitPerSecond, long worstAllowed, long worstBound, long p50Micros, long p99Micros) {
        boolean over() {
            return worstAllowed > worstBound;
        }
    }

    private final List<Row> rows;
    private final Set<String> formulas;
    private final Duration skew;

    private LoadReport(List<Row> rows, Set<String> formulas, Duration skew) {
        this.rows = List.copyOf(rows);
        this.formulas = formulas;
        this.skew = skew;
    }

    static LoadReport of(List<VirtualClient> clients, Duration skew) {
        Map<String, List<VirtualClient>> byRow = new LinkedHashMap<>();
        for (VirtualClient c : clients) {
            byRow.computeIfAbsent(c.target().tier() + "\u0000" + c.target().endpoint(), k -> new ArrayList<>()).add(c);
        }
        List<Row> rows = new ArrayList<>();
        Set<String> formulas = new LinkedHashSet<>();
        for (List<VirtualClient> group : byRow.values()) {
            Target t = group.get(0).target();
            for (Policy p : t.limit().policies()) {
                formulas.add(p.algorithm().replace('_', ' ') + ": " + AdmissionBound.formula(p));
            }
            long sent = 0;
            long allowed = 0;
            long rejected = 0;
            long other = 0;
            double rateSum = 0;
            long worstAllowed = 0;
            long worstBound = 0;
            long worstExcess = Long.MIN_VALUE;
            LatencyHistogram latencies = new LatencyHistogram();
            for (VirtualClient c : group) {
                sent += c.sent.get();
                allowed += c.allowed.get();
                rejected += c.rejected.get();
                other += c.other.get();
                latencies.addAll(c.latencies);
                if (c.firstSendMicros() < 0) {
                    continue;
                }
                long first = c.firstSendMicros();
                long last = Math.max(first, c.lastAnswerMicros());
                long admitted = c.allowed.get();
                rateSum += admitted / Math.max(1e-6, (last - first) / 1e6);
                AdmissionBound.Count run = new AdmissionBound.Count(admitted,
                        AdmissionBound.maxRequests(t.limit(), t.cost(), first, last, skew));
                AdmissionBound.Count window = AdmissionBound.fullestWindow(t.limit(), t.cost(), c.admittedSends(),
                        c.admittedAnswers(), skew);
                AdmissionBound.Count worst = window != null && window.excess() > run.excess() ? window : run;
                if (worst.excess() > worstExcess) {
                    worstExcess = worst.excess();
                    worstAllowed = worst.admitted();
                    worstBound = worst.bound();
                }
            }
            rows.add(new Row(t.tier(), t.endpoint(), PolicyText.describe(t.limit()), group.size(), sent, allowed, rejected, other,
                    rateSum / group.size(), AdmissionBound.sustainedPerSecond(t.limit(), t.cost()), worstAllowed, worstBound,
                    latencies.percentile(0.50), latencies.percentile(0.99)));
        }
        return new LoadReport(rows, formulas, skew);
    }

    List<Row> rows() {
        return rows;
    }

    /** Whether any client was admitted more than its bound. */
    boolean exceeded() {
        return rows.stream().anyMatch(Row::over);
    }

    /** Answers that were a 2xx or a 429 (anything else is a failure of the check itself). */
    long answered() {
        return rows.stream().mapToLong(r -> r.allowed() + r.rejected()).sum();
    }

    String render() {
        List<String[]> cells = new ArrayList<>();
        cells.add(new String[] {"tier", "endpoint", "limit", "clients", "sent", "allowed", "429", "other", "allowed/s",
                "limit/s", "max/bound", "p50", "p99", "verdict"});
        for (Row r : rows) {
            cells.add(new String[] {r.tier(), r.endpoint(), r.limit(), String.valueOf(r.clients()), String.valueOf(r.sent()),
                    String.valueOf(r.allowed()), String.valueOf(r.rejected()), String.valueOf(r.other()), rate(r.allowedPerSecond()),
                    rate(r.limitPerSecond()), r.worstAllowed() + "/" + r.worstBound(), latency(r.p50Micros()), latency(r.p99Micros()),
                    r.over() ? "OVER" : "ok"});
        }
        int[] widths = new int[cells.get(0).length];
        for (String[] row : cells) {
            for (int i = 0; i < row.length; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        StringBuilder s = new StringBuilder();
        for (String[] row : cells) {
            for (int i = 0; i < row.length; i++) {
                boolean left = i < 3 || i == row.length - 1;
                String cell = i == row.length - 1 ? row[i]
                        : left ? String.format("%-" + widths[i] + "s", row[i]) : String.format("%" + widths[i] + "s", row[i]);
                s.append(i == 0 ? "" : "  ").append(cell);
            }
            s.append('\n');
        }
        s.append("allowed/s: admissions per second per client over its run (a short run includes the burst); limit/s: the configured sustained rate\n");
        s.append("max/bound: the client nearest its bound, admitted/most its limit allows (per client key, over its own interval T; "
                + "window edges widened by " + (skew.toMillis() / 1000.0) + "s of clock skew):\n");
        for (String f : formulas) {
            s.append("  ").append(f).append('\n');
        }
        return s.toString();
    }

    private static String rate(double perSecond) {
        return String.format(Locale.ROOT, "%.2f", perSecond);
    }

    static String latency(long micros) {
        if (micros < 1_000) {
            return micros + "us";
        }
        if (micros < 1_000_000) {
            return String.format(Locale.ROOT, "%.1fms", micros / 1e3);
        }
        return String.format(Locale.ROOT, "%.2fs", micros / 1e6);
    }
}
