package dev.ratelimit.servlet.client;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Trusting every address is allowed (an app only its proxies reach) but said at start-up. */
class TrustedProxiesTest {
    private final ByteArrayOutputStream log = new ByteArrayOutputStream();
    private PrintStream stderr;

    @BeforeEach
    void captureLog() {
        stderr = System.err;
        System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restoreLog() {
        System.setErr(stderr);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0.0.0.0/0", "::/0", "::ffff:0:0/96"})
    void aBlockOfEveryAddressIsAcceptedWithAWarning(String block) {
        TrustedProxies proxies = TrustedProxies.of(List.of("10.0.0.0/8", block));

        assertThat(proxies.isEmpty()).isFalse();
        assertThat(log.toString(StandardCharsets.UTF_8)).contains("WARN").contains("trusted proxies include")
                .contains("chooses its own address");
    }

    @ParameterizedTest
    @ValueSource(strings = {"10.0.0.0/8", "127.0.0.1", "2001:db8::/32"})
    void aProxyNetworkIsAcceptedSilently(String block) {
        TrustedProxies.of(List.of(block));

        assertThat(log.toString(StandardCharsets.UTF_8)).doesNotContain("trusted proxies include");
    }
}
