package dev.ratelimit.example.loadcheck;

import dev.ratelimit.Clock;
import dev.ratelimit.config.DurationFormat;
import dev.ratelimit.example.cli.UsageException;

import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The load check: {@code --clients} virtual clients, each with its own API key, spread over the
 * tiers and endpoints, send requests back to back for {@code --duration} to every {@code --url} in
 * turn; then a table per tier and endpoint (sent, allowed, 429, other, allowed rate against the
 * configured one, p50/p99 latency) and a verdict: did any client get more than its limit's algorithm
 * allows ({@link dev.ratelimit.example.limits.AdmissionBound})?
 * <pre>
 * java -cp rate-limit-example-webapp/target/rate-limit-example.jar dev.ratelimit.example.loadcheck.LoadCheck \
 *      --url=http://localhost:8080,http://localhost:8081 --clients=18 --duration=10s
 * </pre>
 * Exit code 0 when every client stayed within its bound, 1 when one did not (several instances with
 * separate in-memory stores, for example), 2 for a bad command line, 3 when no request was answered.
 * Runs longer than {@code --progress} (default 5s) print progress as they go. When the servers serve
 * the example's {@code /metrics}, the check also says how many requests they decided without their
 * store during the run ({@link StoreOutcomes}), which an OVER verdict then blames.
 */
public final class LoadCheck {
    static final int OK = 0;
    static final int OVER_LIMIT = 1;
    static final int USAGE = 2;
    static final int NO_ANSWERS = 3;

    private LoadCheck() {
    }

    public static void main(String[] args) throws InterruptedException {
        System.exit(run(args, Clock.system(), System.out, System.err));
    }

    /** Runs the check; {@code clock} measures the run and the latencies. */
    static int run(String[] args, Clock clock, PrintStream out, PrintStream err) throws InterruptedException {
        LoadCheckOptions options;
        try {
            options = LoadCheckOptions.parse(args);
        } catch (UsageException e) {
            err.println("load check: " + e.getMessage() + " (--help lists every flag)");
            return USAGE;
        }
        if (options.help()) {
            out.println(usage());
            return OK;
        }
        out.printf("load check: %d clients for %s against %s (keys *lc-%s-N)%n", options.targets().size(),
                DurationFormat.format(options.duration()), options.urls().stream().map(URI::toString).collect(Collectors.joining(", ")),
                options.runId());
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(options.timeout()).build();
        Optional<List<StoreOutcomes>> before = StoreOutcomes.read(http, options.urls(), options.timeout());
        long start = clock.nowMicros();
        long deadline = start + options.duration().toNanos() / 1_000;
        CountDownLatch done = new CountDownLatch(options.targets().size());
        List<VirtualClient> clients = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < options.targets().size(); i++) {
            VirtualClient c = new VirtualClient(options.targets().get(i), options.urls(), i, http, clock, deadline, options.timeout(), done);
            clients.add(c);
            Thread t = new Thread(c, "load-check-" + (i + 1));
            t.setDaemon(true);
            threads.add(t);
        }
        threads.forEach(Thread::start);
        long progressMillis = options.progress().toMillis();
        while (!(progressMillis > 0 ? done.await(progressMillis, TimeUnit.MILLISECONDS) : awaitAll(done))) {
            long now = clock.nowMicros();
            if (now < deadline) { // a run as long as --progress ends as the wait does: the table follows, no progress line
                out.println(progress(clients, now - start, options.duration()));
            }
        }
        LoadReport report = LoadReport.of(clients, options.skew());
        out.print(report.render());
        if (report.answered() == 0) {
            out.println("FAILED: no request got a 2xx or a 429; is the server at " + options.urls() + " running?");
            return NO_ANSWERS;
        }
        long withoutStore = 0;
        List<URI> restarted = new ArrayList<>();
        if (before.isPresent()) {
            Optional<List<StoreOutcomes>> after = StoreOutcomes.read(http, options.urls(), options.timeout());
            if (after.isPresent()) {
                StoreOutcomes during = new StoreOutcomes(0, 0);
                for (int i = 0; i < options.urls().size(); i++) {
                    StoreOutcomes was = before.get().get(i);
                    StoreOutcomes is = after.get().get(i);
                    if (is.restartedSince(was)) {
                        restarted.add(options.urls().get(i));
                    }
                    during = during.plus(is.since(was));
                }
                withoutStore = during.withoutStore();
                if (!restarted.isEmpty()) {
                    out.printf("restarted during the run (their /metrics counted from zero again): %s; what they decided "
                            + "before is not counted below, and a restarted in-memory server forgot what clients had spent%n", restarted);
                }
                if (withoutStore > 0) {
                    out.printf("the servers decided %d of %d requests without their store (their /metrics: local fallback, "
                            + "fail-open or 503): was Redis failing or slower than its timeout? See their logs and /health%n",
                            withoutStore, withoutStore + during.byStore());
                }
            }
        }
        if (report.exceeded()) {
            out.println("FAILED: some clients were admitted more than their limit allows (rows marked OVER): " + (withoutStore > 0
                    ? "decisions made without the store are each instance's alone (under LOCAL_FALLBACK, its fallback share of the limit)"
                    : !restarted.isEmpty() ? "a server restarted during the run; check again without restarts"
                    : "do the instances share one store (REDIS_URL)?"));
            return OVER_LIMIT;
        }
        out.println("OK: every client stayed within its limit's bound");
        return OK;
    }

    private static boolean awaitAll(CountDownLatch done) throws InterruptedException {
        done.await();
        return true;
    }

    private static String progress(List<VirtualClient> clients, long elapsedMicros, Duration duration) {
        long sent = 0;
        long allowed = 0;
        long rejected = 0;
        long other = 0;
        for (VirtualClient c : clients) {
            sent += c.sent.get();
            allowed += c.allowed.get();
            rejected += c.rejected.get();
            other += c.other.get();
        }
        return String.format(Locale.ROOT, "  %5.1fs of %s: sent %d, allowed %d, 429 %d, other %d", elapsedMicros / 1e6,
                DurationFormat.format(duration), sent, allowed, rejected, other);
    }

    static String usage() {
        return """
                Usage: java -cp rate-limit-example.jar dev.ratelimit.example.loadcheck.LoadCheck [--flag=value ...]
                  --url=http://localhost:8080   one or more base URLs, comma-separated; each client takes them in turn
                  --clients=N                   virtual clients, each with its own API key (default: 2 per tier x endpoint)
                  --duration=10s                how long they send requests, back to back
                  --tiers=free,pro,enterprise   which tiers (default: all in the configuration)
                  --endpoints=scan,reports,login which endpoints (default: all)
                  --config=FILE                 the JSON configuration the servers run (default: the bundled tiers)
                  --progress=5s                 print progress this often (0: never)
                  --skew=1s                     clock difference allowed between this machine and the servers' store
                  --timeout=10s                 connect and request timeout
                  --run-id=ID                   part of every key (default: random, so runs do not share quota)
                Exit code: 0 every client within its bound, 1 some client over it, 2 bad command line, 3 no answers.""";
    }
}
