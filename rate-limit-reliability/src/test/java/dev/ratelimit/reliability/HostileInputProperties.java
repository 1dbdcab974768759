package dev.ratelimit.reliability;

import dev.ratelimit.Clock;
import dev.ratelimit.example.server.EmbeddedExample;
import dev.ratelimit.testing.RedisServer;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tag;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Generated hostile requests, as raw bytes over a socket, to the whole example app on Redis (its
 * filter trusts 127.0.0.1 as a proxy, so forwarding headers are parsed, not skipped). Whatever
 * arrives: an answer, and never a 5xx (but Jetty's own 505 to an HTTP/0.9 request line, which no
 * application code sees); nothing logged above INFO (an exception escaping the filter
 * would be a WARN from Jetty and a 500; one caught by the filter a WARN of its own); every log line a
 * whole line as the logger writes it (CR or LF in the input cannot start a forged one); no Redis key
 * but the documented layout of hashes; and the unique marker hidden in every input never appears in
 * the answer, the log or Redis. A request refused as malformed (400, 414, 431) creates no Redis key:
 * it is counted against nobody.
 *
 * <p>The servlet module's {@code HostileInputProperties} covers the filter alone through
 * {@code java.net.http}, which cannot send control characters or bare CR/LF; these go further, through
 * Jetty's parser, the app and Redis. The example app parses {@code X-Forwarded-For}; a
 * {@code Forwarded} header is sent too and must be ignored just as safely.
 */
@Tag("reliability")
class HostileInputProperties {
    private static final List<String> FRAGMENTS = List.of("\r\n", "\n", "\r", "\r\nX-Forged: 1", "\n2026-01-01T00:00:00.000 [main] WARN x - FORGED",
            "%0d%0a", "%0A", "\u2028", "\u0085", "\u0000", "\t", " ", "${jndi:ldap://x/a}", "' OR 1=1 --", "<script>", "\\", "\"", "{", "}",
            "*", "?", "rl:", "../", "sk-pro-", "sk-ent-", ",", ";", "=", "\u00ff", "\u00e9", "\ud83d\ude00", "\ud800");
    private static final List<String> FORWARDING = List.of("1.2.3.4", "::1", "[2001:db8::1]:80", "2001:DB8::1", "unknown", "for=", "by=",
            "proto=https", "\"", "\\", ";", ",", " ", "\t", "300.1.1.1", "_hidden", "[", "]", ":", "%", "fe80::1%eth0", "::ffff:10.0.0.1",
            "01.2.3.4", "0x7f.1", "127.0.0.1", "10.0.0.1:99999", "for=\"[::1]:1\"", "for=192.0.2.60;proto=http;by=203.0.113.43");
    private static final List<String> SEGMENTS = List.of("api", "scan", "reports", "login", "health", "metrics", "dashboard", "..", ".", "%2e%2e", "%2F", "%00",
            "%0d%0a", "%0A", ";x=1", "%73can", "%", "~", "", "a%20b", "%ZZ", "%c0%ae", "\\", "*", "%ff", "\u00e9", "%u0041", "?", "#",
            "scan?x=\r\n");
    private static final Map<String, Map<Integer, Long>> answers = new ConcurrentHashMap<>();
    private static final java.util.concurrent.atomic.AtomicInteger jettyWarnings = new java.util.concurrent.atomic.AtomicInteger();

    private static RedisServer redis;
    private static long containerLogMark;
    private static EmbeddedExample app;

    @BeforeContainer
    static void start() {
        containerLogMark = AppLog.mark();
        redis = RedisServer.start();
        try {
            app = EmbeddedExample.start(Apps.env(redis.url(), "RATE_LIMIT_TRUSTED_PROXIES", "127.0.0.1/32,::1/128"), Clock.system());
        } catch (RuntimeException | Error e) {
            redis.close();
            throw e;
        }
    }

    @AfterContainer
    static void stop() {
        try {
            if (app != null) {
                app.close();
            }
        } finally {
            redis.close();
        }
        StringBuilder table = new StringBuilder("| property | requests | answers (status: count) |\n|---|---|---|\n");
        answers.forEach((property, statuses) -> table.append("| ").append(property).append(" | ")
                .append(statuses.values().stream().mapToLong(Long::longValue).sum()).append(" | ").append(statuses).append(" |\n"));
        table.append("\nJetty's own WARN lines for malformed request targets (org.eclipse.jetty.util.HostPort, Bad Authority / Bad port): ").append(jettyWarnings.get())
                .append("; no other line above INFO; no log line that the logger did not write whole; no secret marker in the log, ")
                .append("an answer or Redis; every Redis key a hash in the documented layout.\n");
        Report.section("Hostile input through the app on Redis (jqwik, raw sockets)", table.toString());
    }

    @Property
    void anApiKeyGetsAnAnswerButNeverA5xxNorLeavesATrace(@ForAll("apiKeys") String key, @ForAll("marker") String marker,
                                                         @ForAll("methods") String method, @ForAll("targets") String target,
                                                         @ForAll boolean latin1) {
        String hidden = key.replace("MARKER", marker);
        ByteArrayOutputStream head = requestLine(method, target);
        header(head, "X-API-Key", hidden, latin1);
        expectNoTrace("API key", marker, head.toByteArray());
    }

    @Property
    void aForwardingHeaderGetsAnAnswerButNeverA5xxNorLeavesATrace(@ForAll("forwarding") String xForwardedFor,
                                                                   @ForAll("forwarding") String forwarded,
                                                                   @ForAll("marker") String marker, @ForAll boolean latin1) {
        ByteArrayOutputStream head = requestLine("GET", "/api/reports");
        header(head, "X-Forwarded-For", xForwardedFor.replace("MARKER", marker), latin1);
        header(head, "Forwarded", forwarded.replace("MARKER", marker), latin1);
        expectNoTrace("X-Forwarded-For and Forwarded", marker, head.toByteArray());
    }

    @Property
    void aPathOrMethodGetsAnAnswerButNeverA5xxNorLeavesATrace(@ForAll("paths") String path, @ForAll("methods") String method,
                                                              @ForAll("marker") String marker) {
        // A path is no secret: it may come back in Jetty's 404 page (HTML-escaped) and in Jetty's own warnings,
        // so it carries a marker of its own (PX...), checked only against Redis; the key's must appear nowhere.
        String pathMarker = "PX" + marker.substring(2);
        ByteArrayOutputStream head = requestLine(method, path.replace("MARKER", pathMarker));
        header(head, "X-API-Key", "sk-free-" + marker, false);
        expectNoTrace("path and method", marker, head.toByteArray());
        assertThat(RedisKeys.all(redis.port())).as("Redis keys").noneMatch(k -> k.contains(pathMarker));
    }

    @Example
    void aTargetThatJettyQuotesWithANextLineCharacterInItsOwnWarningStillLeavesWholeLines() {
        // Found by the property above: Jetty's HostPort warning quotes a CONNECT target that is not host:port as
        // received, NEL (U+0085) included. The line is still one line as the logger wrote it.
        ByteArrayOutputStream head = requestLine("CONNECT", "PXghijkl\u0085mnopqr/api/scan");
        header(head, "X-API-Key", "sk-free-QXghijklmnopqr", false);
        expectNoTrace("path and method", "QXghijklmnopqr", head.toByteArray());
    }

    @Property
    void aHeaderOfAnySizeGetsAnAnswerButNeverA5xx(@ForAll @IntRange(max = 70_000) int padding,
                                                  @ForAll @IntRange(max = 300) int headers,
                                                  @ForAll @IntRange(max = 12_000) int keyLength,
                                                  @ForAll("marker") String marker) {
        ByteArrayOutputStream head = requestLine("GET", "/api/scan");
        header(head, "X-API-Key", "sk-pro-" + marker + "k".repeat(keyLength), false);
        if (padding > 0) {
            header(head, "X-Padding", "p".repeat(padding), false);
        }
        for (int i = 0; i < headers; i++) {
            header(head, "X-Many-" + i, marker, false);
        }
        expectNoTrace("header sizes", marker, head.toByteArray());
    }

    /** Sends {@code head}, then checks the answer, the log lines written meanwhile and every Redis key. */
    private static void expectNoTrace(String property, String marker, byte[] head) {
        long keysBefore = RedisKeys.count(redis.port());
        RawHttp.Answer answer = RawHttp.send(app.port(), head);
        answers.computeIfAbsent(property, p -> new ConcurrentHashMap<>()).merge(answer.status(), 1L, Long::sum);

        boolean resetAfterRefusal = answer.status() == 0 && answer.text().isEmpty() && head.length > JETTY_REQUEST_HEADER_SIZE;
        if (resetAfterRefusal) {
            // Jetty refuses a head over its limit (431) before any application code and closes the
            // connection with the rest of the request unread: the reset that sends may reach this
            // client before the 431 does, which then never arrives. Counted in the report as status 0.
            assertThat(RedisKeys.count(redis.port())).as("a refused request is counted against nobody").isLessThanOrEqualTo(keysBefore);
        } else if (answer.status() == 505) {
            // Jetty's parser, before any application code: a request line without a version is HTTP/0.9,
            // which it refuses as RFC 9110 says. Counted in the report; the filter never saw it.
            assertThat(answer.text()).as("a 505 comes from Jetty's parser only").contains("<td>/badMessage</td>")
                    .doesNotContain("RateLimit");
        } else {
            assertThat(answer.status()).as("status of %s", answer.text()).isBetween(200, 499);
        }
        assertThat(answer.text()).as("the answer").doesNotContain(marker);
        // A request's lines may be written after its answer: each try reads all lines since the container started.
        List<String> logged = withoutJettyBufferRelease(AppLog.linesSince(containerLogMark));
        assertThat(logged).as("log lines, each whole and as the logger writes it").allMatch(l -> AppLog.LINE.matcher(l).matches());
        List<String> warnings = logged.stream().filter(l -> l.matches("(?s)^\\S+ \\[[^]]*] (WARN|ERROR) .*")).toList();
        assertThat(warnings).as("nothing above INFO but Jetty's parser warnings: no exception escaped the filter or was caught by it")
                .allMatch(HostileInputProperties::isJettyParserWarning);
        jettyWarnings.set(warnings.size());
        assertThat(logged).as("no secret marker (API key, forwarding header, header value) in the log")
                .noneMatch(l -> SECRET.matcher(l).find());
        List<String> keys = RedisKeys.all(redis.port());
        assertThat(keys).as("Redis keys: hashes only").allMatch(k -> RedisKeyLayout.KEY.matcher(k).matches());
        if (answer.status() == 400 || answer.status() == 414 || answer.status() == 431) {
            assertThat(RedisKeys.count(redis.port())).as("a refused request is counted against nobody").isLessThanOrEqualTo(keysBefore);
        }
    }

    /**
     * {@code lines} without Jetty's own "Task run failed" (or "Job failed") WARN for a request buffer it released twice
     * and that warning's stack trace: a race inside Jetty's HttpConnection.releaseRequestBuffer, before
     * or after any application code, that Jetty's maintainers know of and could not reproduce
     * (jetty/jetty.project#12939); it struck one CI run of these properties in many.
     */
    private static List<String> withoutJettyBufferRelease(List<String> lines) {
        List<String> kept = new java.util.ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            // Logged by whichever Jetty thread ran the connection: its execution strategy, or the pool itself.
            boolean jettyTaskFailed = lines.get(i).endsWith(" WARN org.eclipse.jetty.util.thread.strategy.AdaptiveExecutionStrategy - Task run failed")
                    || lines.get(i).endsWith(" WARN org.eclipse.jetty.util.thread.QueuedThreadPool - Job failed");
            if (jettyTaskFailed && i + 1 < lines.size() && lines.get(i + 1).startsWith("java.lang.IllegalStateException: already released ")
                    && lines.subList(i + 1, lines.size()).stream().takeWhile(l -> !AppLog.LINE.matcher(l).matches())
                            .anyMatch(l -> l.contains("HttpConnection.releaseRequestBuffer"))) {
                i++;
                while (i + 1 < lines.size() && !AppLog.LINE.matcher(lines.get(i + 1)).matches()) {
                    i++; // the stack trace
                }
                continue;
            }
            kept.add(lines.get(i));
        }
        return kept;
    }

    /**
     * Jetty's authority parser logs a WARN of its own for some malformed request targets before any
     * application code runs ("Bad Authority" for a CONNECT whose target is not host:port, "Bad port" for
     * an absolute URI whose authority is not host:port). Counted in the report.
     */
    private static boolean isJettyParserWarning(String line) {
        // Also Jetty's error page for its own 431, when the page (which quotes a long request target) outgrows
        // its 8 KiB buffer: before any application code (a generated path, 2026-12-03).
        return line.contains(" WARN org.eclipse.jetty.util.HostPort - Bad ")
                || line.contains(" WARN org.eclipse.jetty.server.handler.ErrorHandler - Error page too large: >8192 431 ");
    }

    private static ByteArrayOutputStream requestLine(String method, String target) {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        head.writeBytes((method + " " + target + " HTTP/1.1\r\nHost: x\r\n").getBytes(StandardCharsets.UTF_8));
        return head;
    }

    private static void header(ByteArrayOutputStream head, String name, String value, boolean latin1) {
        head.writeBytes((name + ": ").getBytes(StandardCharsets.US_ASCII));
        head.writeBytes(value.getBytes(latin1 ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8));
        head.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
    }

    /** Jetty's default limit on a request's line and headers, in bytes (the example app keeps it). */
    private static final int JETTY_REQUEST_HEADER_SIZE = 8 * 1024;

    /** What a secret marker looks like: QX and 12 letters g-z, never part of a hex digest nor, by chance, of a base64 one. */
    private static final java.util.regex.Pattern SECRET = java.util.regex.Pattern.compile("QX[g-z]{12}");

    @Provide
    Arbitrary<String> marker() {
        return Arbitraries.strings().withCharRange('g', 'z').ofLength(12).withoutEdgeCases().map(s -> "QX" + s);
    }

    /** Hostile text around the word MARKER, which each property replaces by its marker. */
    private static Arbitrary<String> around(List<String> fragments) {
        Arbitrary<String> piece = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.of(fragments)),
                Tuple.of(6, Arbitraries.strings().withCharRange(' ', '~').ofMaxLength(20)),
                Tuple.of(1, Arbitraries.strings().withCharRange('\u0000', '\u001f').withChars('\u007f').ofMaxLength(3)),
                Tuple.of(1, Arbitraries.strings().withCharRange('\u0080', '\uffff').ofMaxLength(4)));
        Arbitrary<String> side = piece.list().ofMaxSize(4).map(parts -> String.join("", parts));
        return Combinators.combine(side, side).as((before, after) -> before + "MARKER" + after);
    }

    @Provide
    Arbitrary<String> apiKeys() {
        Arbitrary<String> prefix = Arbitraries.of("", "sk-free-", "sk-pro-", "sk-ent-", "SK-PRO-", " sk-pro-");
        Arbitrary<String> hostile = Combinators.combine(prefix, around(FRAGMENTS)).as(String::concat);
        Arbitrary<String> long_ = Arbitraries.integers().between(200, 12_000).map(n -> "sk-pro-MARKER" + "x".repeat(n));
        return Arbitraries.frequencyOf(Tuple.of(8, hostile), Tuple.of(1, long_));
    }

    @Provide
    Arbitrary<String> forwarding() {
        Arbitrary<String> assembled = Arbitraries.of(FORWARDING).list().ofMaxSize(10).map(parts -> String.join("", parts));
        return Combinators.combine(assembled, around(FORWARDING)).as((a, b) -> a + b);
    }

    @Provide
    Arbitrary<String> methods() {
        return Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.just("GET")),
                Tuple.of(3, Arbitraries.of("GET", "POST", "HEAD", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE", "CONNECT", "PRI", "FOO",
                        "get", "M-SEARCH", "G\tET", "GET\u0000", "\u00c9T")),
                Tuple.of(1, Arbitraries.strings().withCharRange('!', '~').ofMinLength(1).ofMaxLength(16)),
                Tuple.of(1, Arbitraries.integers().between(100, 10_000).map("A"::repeat)));
    }

    @Provide
    Arbitrary<String> targets() {
        return Arbitraries.of("/api/scan", "/api/scan", "/api/scan", "/api/reports", "/api/login", "/health", "/metrics",
                "/dashboard/", "/dashboard/app.js", "/api/other", "/");
    }

    @Provide
    Arbitrary<String> paths() {
        Arbitrary<String> segment = Arbitraries.oneOf(Arbitraries.of(SEGMENTS), Arbitraries.just("MARKER"),
                Arbitraries.strings().withCharRange('!', '~').ofMaxLength(12), Arbitraries.strings().withCharRange('\u0000', '\u00ff').ofMaxLength(3));
        Arbitrary<String> origin = segment.list().ofMinSize(1).ofMaxSize(8).map(s -> "/" + String.join("/", s));
        return Arbitraries.oneOf(origin, origin.map(p -> "http://x" + p), origin.map(p -> p.substring(1)),
                Arbitraries.of("*", "", "//MARKER", "/api/scan?" + "q=MARKER&x=%0d%0a"),
                Arbitraries.integers().between(1_000, 20_000).map(n -> "/api/MARKER" + "s".repeat(n)));
    }
}
