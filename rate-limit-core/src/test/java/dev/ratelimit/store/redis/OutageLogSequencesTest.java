package dev.ratelimit.store.redis;

import dev.ratelimit.FailureMode;
import dev.ratelimit.StoreHealth;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.ratelimit.StoreHealth.CIRCUIT_OPEN;
import static dev.ratelimit.StoreHealth.DEGRADED;
import static dev.ratelimit.StoreHealth.UP;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The outage log's promises over random sequences of health changes (as the breakers report them,
 * CIRCUIT_OPEN to DEGRADED and back included, some outages started by a failed connection check) and
 * failed calls, on clock readings jittered by 50 ms and now and then stepped back an hour, 2,000
 * seeded sequences of 400 steps:
 * <ul>
 *     <li>an outage's end is logged only if something of it was (or a check started it, not within a
 *     minute of the last such outage not left out);</li>
 *     <li>the ends of outages that checks started, at most two in any minute;</li>
 *     <li>the counts of outages left out, and of those with the breaker open, are those of a model;</li>
 *     <li>an outage's opening is said at most once;</li>
 *     <li>at most 40 lines in any minute;</li>
 *     <li>an outage that lasts, failing, is logged.</li>
 * </ul>
 * From a review, which found with it the last two broken. A failure names the broken promise and the
 * shortest sequence that broke it.
 */
class OutageLogSequencesTest {
    static final Pattern COUNT = Pattern.compile("\\((\\d+) brief outages since the last one logged(?:, (-?\\d+) of them)?");

    record Line(long real, String text) {}

    static final class Violation extends RuntimeException {
        final String kind;
        Violation(String kind, String msg) { super(msg); this.kind = kind; }
    }

    @Test
    void randomHealthSequencesKeepTheLogsPromises() {
        Map<String, Integer> broken = new TreeMap<>();
        Map<String, String> shortest = new HashMap<>();
        int seeds = 2000;
        for (int seed = 0; seed < seeds; seed++) {
            List<String> trace = new ArrayList<>();
            try {
                run(new Random(seed), trace);
            } catch (Violation v) {
                broken.merge(v.kind, 1, Integer::sum);
                String s = "seed " + seed + ": " + v.getMessage() + "\n    " + String.join("\n    ", trace.subList(Math.max(0, trace.size() - 25), trace.size()));
                if (!shortest.containsKey(v.kind) || trace.size() < Integer.parseInt(shortest.get(v.kind).split("\\|", 2)[0])) {
                    shortest.put(v.kind, trace.size() + "|" + s);
                }
            }
        }
        StringBuilder why = new StringBuilder();
        broken.forEach((k, n) -> why.append(k).append(" broken in ").append(n).append(" seeds; shortest:\n  ")
                .append(shortest.get(k).split("\\|", 2)[1]).append('\n'));
        assertThat(broken).as(why.toString()).isEmpty();
    }

    private void run(Random r, List<String> trace) {
        List<Line> lines = new ArrayList<>();
        long[] real = {0};
        OutageLog log = new OutageLog(new OutageLog.Lines() {
            public void warn(String l) { lines.add(new Line(real[0], "WARN " + l)); }
            public void info(String l) { lines.add(new Line(real[0], "INFO " + l)); }
        }, "r", FailureMode.FAIL_OPEN);
        Throwable[] causes = {new IllegalStateException("down"), new redis.clients.jedis.exceptions.JedisDataException("OOM x"),
                new redis.clients.jedis.exceptions.JedisDataException("READONLY x"), null};
        long offset = 5L * 3_600_000_000L;
        StoreHealth h = UP;
        // model of the outage under way
        boolean checkStarted = false;
        // a check-started outage is left to the check's caller (its end logged) unless within a minute of the last one that was
        boolean checkTracked = false, anyCheckTracked = false;
        long lastCheckTracked = 0;
        int outageLines = 0, openLines = 0;
        boolean opened = false;
        long outageStart = 0, lastFailure = -1;
        // outages since the last "is failing" line: (logged?, opened?)
        List<boolean[]> sinceLastStart = new ArrayList<>();
        List<Long> checkEnds = new ArrayList<>();
        for (int step = 0; step < 400; step++) {
            real[0] += r.nextInt(10) == 0 ? r.nextInt(20_000_000) : r.nextInt(2_000_000);
            if (r.nextInt(300) == 0) offset -= 3_600_000_000L;   // clock stepped back an hour
            long now = real[0] + offset + r.nextInt(100_000) - 50_000;
            int before = lines.size();
            int action = r.nextInt(10);
            Throwable cause = causes[r.nextInt(causes.length)];
            if (action < 4 && h != UP) {
                trace.add("failed(" + name(cause) + ", " + now + ")");
                log.failed(cause, now);
                lastFailure = real[0];
            } else if (action < 6 && h != UP && r.nextInt(4) == 0) {
                // an outage that lasts: failures every second for 150 s
                for (int i = 0; i < 150; i++) {
                    real[0] += 1_000_000;
                    long n = real[0] + offset + r.nextInt(100_000) - 50_000;
                    log.failed(causes[0], n);
                    lastFailure = real[0];
                }
                trace.add("failed(...) every second for 150 s up to " + (real[0] + offset));
            } else {
                StoreHealth next;
                do { next = StoreHealth.values()[r.nextInt(3)]; } while (next == h);
                if (h == UP) {
                    if (r.nextInt(5) == 0) cause = new OutageLog.CheckFailed(causes[0]);
                    checkStarted = cause instanceof OutageLog.CheckFailed;
                    checkTracked = checkStarted && !(anyCheckTracked && Math.abs(now - lastCheckTracked) < OutageLog.QUIET_MICROS);
                    if (checkTracked) {
                        anyCheckTracked = true;
                        lastCheckTracked = now;
                    }
                    outageLines = 0; openLines = 0; opened = false; outageStart = real[0];
                    trace.add("changed(UP, DEGRADED, " + name(cause) + ", " + now + ")");
                    log.changed(UP, DEGRADED, cause, now);
                    outageLines += lines.size() - before;
                    if (next == CIRCUIT_OPEN) {
                        trace.add("changed(DEGRADED, CIRCUIT_OPEN, " + name(cause) + ", " + now + ")");
                        log.changed(DEGRADED, CIRCUIT_OPEN, cause, now);
                    }
                } else {
                    Throwable c = next == UP ? null : cause;
                    trace.add("changed(" + h + ", " + next + ", " + name(c) + ", " + now + ")");
                    log.changed(h, next, c, now);
                }
                if (next == CIRCUIT_OPEN) opened = true;
                if (next == UP) {
                    // end of the outage: record for counts (its own lines are all before the "recovered" one)
                    sinceLastStart.add(new boolean[] {outageLines > 0 || checkTracked, opened});
                }
                h = next;
            }
            // check the new lines
            for (Line l : lines.subList(before, lines.size())) {
                trace.add("  -> " + l.text());
                if (l.text().contains("has recovered") && outageLines == 0 && !checkTracked) {
                    throw new Violation("end-without-start", "recovered logged for an outage with no line");
                }
                if (l.text().contains("is failing")) {
                    // count check: outages ended since the last start line, unlogged
                    int n = 0, m = 0;
                    // the current outage was appended? it started just now, not ended: not in the list
                    for (boolean[] o : sinceLastStart) if (!o[0]) { n++; if (o[1]) m++; }
                    Matcher mm = COUNT.matcher(l.text());
                    int gn = 0, gm = 0;
                    if (mm.find()) { gn = Integer.parseInt(mm.group(1)); gm = mm.group(2) == null ? 0 : Integer.parseInt(mm.group(2)); }
                    if (gn != n || gm != m || gm > gn || gn < 0 || gm < 0) {
                        throw new Violation("counts", "said N=" + gn + " M=" + gm + ", model N=" + n + " M=" + m);
                    }
                    sinceLastStart.clear();
                }
                if (l.text().contains("has recovered") && outageLines == 0 && checkTracked) {
                    checkEnds.add(l.real());
                    if (checkEnds.stream().filter(t -> t > l.real() - 60_000_000L).count() > 2) {
                        throw new Violation("check-ends", "three ends of outages checks started within a minute");
                    }
                }
                if (l.text().contains("has its circuit breaker open")) {
                    openLines++;
                    if (openLines > 1) throw new Violation("opening-twice", "two opening lines in one outage");
                }
                if (!l.text().contains("has recovered")) outageLines++;
                long inMinute = lines.stream().filter(x -> x.real() > l.real() - 60_000_000L).count();
                if (inMinute > 40) throw new Violation("flood", inMinute + " lines within a minute");
            }
            if (h != UP && !checkTracked && outageLines == 0 && real[0] - outageStart > 150_000_000L && lastFailure > outageStart + 120_000_000L) {
                throw new Violation("lasting-unlogged", "outage of " + (real[0] - outageStart) / 1_000_000 + " s with failures, no line; health " + h);
            }
        }
    }

    private static String name(Throwable t) {
        return t == null ? "null" : t instanceof OutageLog.CheckFailed ? "CheckFailed" : t.getClass().getSimpleName() + "(" + t.getMessage() + ")";
    }
}
