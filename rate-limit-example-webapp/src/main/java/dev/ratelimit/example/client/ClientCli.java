package dev.ratelimit.example.client;

import dev.ratelimit.Clock;
import dev.ratelimit.config.DurationFormat;
import dev.ratelimit.example.cli.Flags;
import dev.ratelimit.example.cli.UsageException;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Shows {@link ResilientClient} at work: sends a request {@code --requests} times and prints every
 * try as it happens (how long it waited and why, the status, the quota left), then a summary.
 * <pre>
 * java -cp rate-limit-example-webapp/target/rate-limit-example.jar dev.ratelimit.example.client.ClientCli \
 *      --url=http://localhost:8080 --api-key=sk-free-demo --path=/api/scan --requests=15
 * </pre>
 * Exit code 0 when every request ended in a 2xx, 1 otherwise, 2 for a bad command line.
 */
public final class ClientCli {
    private static final Set<String> FLAGS = new LinkedHashSet<>(List.of("url", "api-key", "method", "path", "body",
            "requests", "max-retries", "max-wait", "base-delay", "max-delay", "pacing", "pace-below"));

    private ClientCli() {
    }

    public static void main(String[] args) throws InterruptedException {
        System.exit(run(args, Clock.system(), Sleeper.system(), System.out, System.err));
    }

    /** Runs the CLI on {@code clock} and {@code sleeper} (tests pass a manual clock and a sleeper advancing it). */
    static int run(String[] args, Clock clock, Sleeper sleeper, PrintStream out, PrintStream err) throws InterruptedException {
        Flags flags;
        ResilientClient client;
        String method;
        String path;
        String body;
        int requests;
        URI url;
        URI target;
        Printer printer = new Printer(out);
        try {
            flags = Flags.parse(args, FLAGS);
            if (flags.help()) {
                out.println(usage());
                return 0;
            }
            try {
                url = new URI(flags.text("url", "http://localhost:8080"));
            } catch (URISyntaxException e) {
                url = null;
            }
            if (url == null || url.getScheme() == null || !url.getScheme().matches("https?") || url.getHost() == null) {
                throw flags.invalid("url", "must be an http:// or https:// URL with a host");
            }
            if (url.getPort() > 65_535 || url.getRawQuery() != null || url.getRawFragment() != null) {
                throw flags.invalid("url", "must be a base URL such as http://localhost:8080: a port up to 65535,"
                        + " no ?query or #fragment");
            }
            if (url.getRawUserInfo() != null) {
                // java.net.http sends no credentials from a URL, and the first output line would print them.
                throw flags.invalid("url", "must not hold user:password@ (the client sends no credentials from the URL;"
                        + " an API key goes in --api-key)");
            }
            path = flags.text("path", "/api/scan");
            if (!path.startsWith("/")) {
                throw flags.invalid("path", "must start with /");
            }
            try {
                target = new URI(url.toString().replaceAll("/+$", "") + path);
            } catch (URISyntaxException e) {
                throw flags.invalid("path", "must be a URL path such as /api/scan");
            }
            String apiKey = flags.text("api-key", null);
            if (apiKey != null) {
                try {
                    HttpRequest.newBuilder().header("X-API-Key", apiKey);
                } catch (IllegalArgumentException e) {
                    // Not flags.invalid: that would print the key.
                    throw new UsageException("--api-key: must be a valid HTTP header value (the key is not shown)");
                }
            }
            method = flags.text("method", path.endsWith("/login") ? "POST" : "GET").toUpperCase(Locale.ROOT);
            boolean sendable = method.matches("[A-Z]{1,16}");
            if (sendable) {
                try {
                    HttpRequest.newBuilder().method(method, HttpRequest.BodyPublishers.noBody()); // refuses CONNECT
                } catch (IllegalArgumentException e) {
                    sendable = false;
                }
            }
            if (!sendable) {
                throw flags.invalid("method", "must be an HTTP method such as GET or POST");
            }
            body = method.equals("POST") || method.equals("PUT") ? flags.text("body", "{\"user\":\"demo\"}") : null;
            requests = flags.number("requests", 15, 1, 1_000_000);
            Duration baseDelay = flags.duration("base-delay", Duration.ofMillis(250), Duration.ZERO);
            Duration maxDelay = flags.duration("max-delay", Duration.ofSeconds(8), Duration.ZERO);
            if (maxDelay.compareTo(baseDelay) < 0) {
                throw flags.invalid("max-delay", "must be at least --base-delay (" + DurationFormat.format(baseDelay) + ")");
            }
            client = ResilientClient.builder(url)
                    .clock(clock)
                    .sleeper(sleeper)
                    .apiKey(flags.text("api-key", null))
                    .maxRetries(flags.number("max-retries", 4, 0, 100))
                    .maxTotalWait(flags.duration("max-wait", Duration.ofSeconds(30), Duration.ZERO))
                    .baseDelay(baseDelay)
                    .maxDelay(maxDelay)
                    .pacing(flags.bool("pacing", true))
                    .paceBelow(flags.decimal("pace-below", 0.1, 0, 1))
                    .onAttempt(printer)
                    .build();
        } catch (UsageException | IllegalArgumentException e) {
            err.println("ResilientClient CLI: " + e.getMessage() + " (--help lists every flag)");
            return 2;
        }
        out.printf("%s %s%s, %d requests%n", method, target, flags.text("api-key", null) == null ? ""
                : " with X-API-Key " + shown(flags.text("api-key", null)), requests);
        out.println("request  try   waited  why it waited                 status  left");
        int ok = 0;
        int gaveUp = 0;
        int failed = 0;
        for (int i = 1; i <= requests; i++) {
            printer.request = i;
            try {
                Exchange exchange = client.send(method, path, body);
                if (exchange.status() / 100 == 2) {
                    ok++;
                } else if (exchange.gaveUp().isPresent()) {
                    gaveUp++;
                    out.println("         gave up: " + exchange.gaveUp().get());
                } else {
                    failed++;
                }
            } catch (IOException e) {
                failed++;
                out.println("         failed: " + e);
            }
        }
        out.printf("%d requests: %d answered 2xx, %d gave up on 429/503, %d other; waited %s in all%n",
                requests, ok, gaveUp, failed, ResilientClient.seconds(printer.waited.toNanos() / 1_000));
        return ok == requests ? 0 : 1;
    }

    /**
     * Prints each try as one table row, and adds up the waits: every try's, those of requests that
     * ended in a connection failure too (they return no {@link Exchange} to ask).
     */
    private static final class Printer implements Consumer<Attempt> {
        private final PrintStream out;
        private int request;
        private Duration waited = Duration.ZERO;

        Printer(PrintStream out) {
            this.out = out;
        }

        @Override
        public void accept(Attempt a) {
            waited = waited.plus(a.waitedBefore());
            out.printf("%7d  %3d  %7s  %-28s  %6s  %4s%n", request, a.number(),
                    ResilientClient.seconds(a.waitedBefore().toNanos() / 1_000), a.waitReason().isEmpty() ? "-" : a.waitReason(),
                    a.status() < 0 ? "error" : String.valueOf(a.status()),
                    a.remaining().isPresent() ? String.valueOf(a.remaining().getAsLong()) : "-");
        }
    }

    static String usage() {
        return """
                Usage: java -cp rate-limit-example.jar dev.ratelimit.example.client.ClientCli [--flag=value ...]
                  --url=http://localhost:8080   the API's base URL
                  --api-key=KEY                 sent as X-API-Key (sk-free-*, sk-pro-*, sk-ent-*); default none (by IP)
                  --path=/api/scan              the path to request
                  --method=GET                  default GET, POST for a path ending in /login
                  --body={"user":"demo"}        the JSON body of a POST or PUT
                  --requests=15                 how many requests to send, one after the other
                  --max-retries=4               retries of a 429/503 or a connection failure per request
                  --max-wait=30s                the most one request may wait in all
                  --base-delay=250ms            back-off before the first retry at most (full jitter, doubling)
                  --max-delay=8s                the largest back-off
                  --pacing=true                 slow down when little quota is left
                  --pace-below=0.1              'little': at most this share of the limit left""";
    }

    /**
     * An API key as the output shows it: a tier prefix such as {@code sk-free-} (one or two words of
     * lower-case letters, each followed by '-'), never the rest; nothing of a key without one (a UUID's
     * groups up to its last '-' would be most of it).
     */
    static String shown(String key) {
        int dash = key.lastIndexOf('-');
        String prefix = dash > 0 && dash < key.length() - 1 ? key.substring(0, dash + 1) : "";
        return (prefix.matches("[a-z]{1,8}-([a-z]{1,12}-)?") ? prefix : "") + "*** (" + key.length() + " characters)";
    }
}
