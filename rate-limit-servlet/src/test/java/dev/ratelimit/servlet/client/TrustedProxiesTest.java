package dev.ratelimit.servlet.client;

import dev.ratelimit.InvalidConfigurationException;
import dev.ratelimit.servlet.RateLimitFilter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Trusting every address is allowed (an app only its proxies reach) but said once, when the filter is built. */
class TrustedProxiesTest {
    private static final String WARNING = "trusted proxies include";

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

    private String logged() {
        return log.toString(StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0.0.0.0/0", "::/0", "::ffff:0:0/96"})
    void aFilterTrustingEveryAddressSaysSoOnceWhenBuilt(String block) {
        // Parsing alone says nothing: the example app checks its setting before it builds the filter.
        TrustedProxies proxies = TrustedProxies.of(List.of("10.0.0.0/8", block));
        assertThat(proxies.everyAddressBlock()).isNotNull();
        assertThat(logged()).doesNotContain(WARNING);

        RateLimitFilter.builder().trustedProxies("10.0.0.0/8", block).build();

        assertThat(logged().split(WARNING, -1)).as("warnings").hasSize(2);
        assertThat(logged()).contains("WARN").contains("chooses its own address");
    }

    @Test
    void aFilterTrustingItsProxiesOnlySaysNothing() {
        RateLimitFilter.builder().trustedProxies("10.0.0.0/8", "127.0.0.1", "2001:db8::/32").build();

        assertThat(TrustedProxies.of(List.of("10.0.0.0/8")).everyAddressBlock()).isNull();
        assertThat(logged()).doesNotContain(WARNING);
    }

    @Test
    void aNullListIsAConfigurationErrorNamingTrustedProxies() {
        assertThatThrownBy(() -> TrustedProxies.of(null)).isInstanceOf(InvalidConfigurationException.class)
                .hasMessageStartingWith("trustedProxies: must be a list");
    }
}
