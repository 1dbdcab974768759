package dev.ratelimit.servlet;

import dev.ratelimit.ManualClock;
import dev.ratelimit.servlet.client.ForwardedHeader;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Generated hostile requests through a real server whose filter trusts the client as a proxy (so
 * forwarding headers are parsed): whatever arrives, the answer is never a 5xx, and a refusal never
 * echoes what was sent.
 */
class HostileInputProperties {
    private static final List<String> FRAGMENTS = List.of("1.2.3.4", "::1", "[2001:db8::1]:80", "2001:DB8::1", "unknown",
            "for=", "by=", "\"", "\\", ";", ",", " ", "\t", "300.1.1.1", "_hidden", "[", "]", ":", "%", "fe80::1%eth0",
            "::ffff:10.0.0.1", "01.2.3.4", "1.2.3", "0x7f.1", "127.0.0.1", "10.0.0.1:99999", "=", "for=\"[::1]:1\"", "xn--p");
    private static final List<String> SEGMENTS = List.of("api", "scan", "reports", "login", "health", "..", ".", "%2e%2e",
            "%2F", "%00", ";x=1", "%73can", "%", "~", "", "a%20b", "%ZZ", "%c0%ae", "\\", "*");

    private static TestServer xForwardedFor;
    private static TestServer forwarded;

    @BeforeContainer
    static void start() {
        ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00.250Z"));
        xForwardedFor = TestServer.start(RateLimitFilter.builder().clock(clock).trustedProxies("127.0.0.0/8").build());
        forwarded = TestServer.start(RateLimitFilter.builder().clock(clock).trustedProxies("127.0.0.0/8", "::1")
                .forwardedHeader(ForwardedHeader.FORWARDED).build());
    }

    @AfterContainer
    static void stop() {
        xForwardedFor.close();
        forwarded.close();
    }

    @Provide
    Arbitrary<String> headerValues() {
        Arbitrary<String> visible = Arbitraries.strings().withCharRange(' ', '~').withChars('\t').ofMinLength(0).ofMaxLength(300);
        Arbitrary<String> assembled = Arbitraries.of(FRAGMENTS).list().ofMaxSize(12).map(parts -> String.join("", parts));
        return Arbitraries.oneOf(visible, assembled);
    }

    @Provide
    Arbitrary<String> methods() {
        return Arbitraries.of("GET", "POST", "HEAD", "PUT", "DELETE", "OPTIONS", "PATCH", "FOO", "get", "M-SEARCH");
    }

    @Property(tries = 200)
    void anApiKeyNeverCausesA5xxNorIsEchoed(@ForAll("headerValues") String key, @ForAll("methods") String method) {
        HttpResponse<String> response = xForwardedFor.send(method, "/api/scan", "X-API-Key", key);

        assertThat(response.statusCode()).isIn(200, 400, 429);
        if (response.statusCode() != 200 && key.trim().length() >= 8) {
            assertThat(response.body()).doesNotContain(key.trim());
        }
    }

    @Property(tries = 200)
    void aForwardingHeaderNeverCausesA5xx(@ForAll("headerValues") String value, @ForAll("methods") String method) {
        HttpResponse<String> viaXff = xForwardedFor.send(method, "/api/reports", "X-Forwarded-For", value);
        HttpResponse<String> viaForwarded = forwarded.send(method, "/api/reports", "Forwarded", value);

        assertThat(viaXff.statusCode()).isIn(200, 429);
        assertThat(viaForwarded.statusCode()).isIn(200, 429);
    }

    @Property(tries = 200)
    void aPathNeverCausesA5xx(@ForAll("paths") String path, @ForAll("methods") String method) {
        String status = xForwardedFor.raw(method + " " + TestServer.CONTEXT + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");

        assertThat(status).matches("HTTP/1\\.1 [234]\\d\\d (?s).*");
    }

    @Provide
    Arbitrary<String> paths() {
        return Arbitraries.of(SEGMENTS).list().ofMinSize(1).ofMaxSize(6).map(segments -> "/" + String.join("/", segments));
    }
}
