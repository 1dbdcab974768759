package dev.ratelimit;

import dev.ratelimit.store.memory.MemoryStore;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

/** An event a listener is told of has every object it names: one built with a null says which. */
class DecisionEventTest {
    private final Limit login = Limit.of("login", Policy.fixedWindow(5, Duration.ofMinutes(1)));
    private final Decision decision = MemoryStore.builder().build().limiter(login).tryAcquire("ip:203.0.113.7");

    @Test
    void aNullObjectIsRefusedByName() {
        assertThatNullPointerException().isThrownBy(() -> new DecisionEvent(null, "login", login, decision, false, 1)).withMessage("tier");
        assertThatNullPointerException().isThrownBy(() -> new DecisionEvent("free", null, login, decision, false, 1)).withMessage("endpoint");
        assertThatNullPointerException().isThrownBy(() -> new DecisionEvent("free", "login", null, decision, false, 1)).withMessage("limit");
        assertThatNullPointerException().isThrownBy(() -> new DecisionEvent("free", "login", login, null, false, 1)).withMessage("decision");
    }

    @Test
    void anEventKeepsWhatItWasGiven() {
        DecisionEvent event = new DecisionEvent("free", "login", login, decision, true, 7);
        assertThat(event.tier()).isEqualTo("free");
        assertThat(event.limit()).isSameAs(login);
        assertThat(event.decision()).isSameAs(decision);
        assertThat(event.shadow()).isTrue();
        assertThat(event.decisionMicros()).isEqualTo(7);
    }
}
