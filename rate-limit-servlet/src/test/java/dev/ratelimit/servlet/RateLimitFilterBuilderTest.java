package dev.ratelimit.servlet;

import dev.ratelimit.InvalidConfigurationException;
import jakarta.servlet.DispatcherType;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The builder's setters answer a bad argument with an error naming the option, never a bare NullPointerException. */
class RateLimitFilterBuilderTest {

    @Test
    void aNullTrustedProxyIsNamedByItsIndex() {
        assertThatThrownBy(() -> RateLimitFilter.builder().trustedProxies("10.0.0.0/8", null))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageStartingWith("trustedProxies[1]: ");
    }

    @Test
    void aNullDispatcherTypeIsNamed() {
        assertThatThrownBy(() -> RateLimitFilter.builder().dispatcherTypes(DispatcherType.REQUEST, DispatcherType.ASYNC, null))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("dispatcherTypes: must not be null");
        assertThatThrownBy(() -> RateLimitFilter.builder().dispatcherTypes(DispatcherType.REQUEST, (DispatcherType[]) null))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("dispatcherTypes: must not be null");
    }
}
