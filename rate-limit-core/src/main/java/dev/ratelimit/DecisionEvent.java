package dev.ratelimit;

import java.util.Objects;

/**
 * One decided request, as told to {@link RateLimitListener#onDecision}. Its objects are never null: a
 * listener may use them as they are (as metric tags, say), and building an event with a null one is a
 * {@link NullPointerException} naming it.
 *
 * @param tier           the client's tier, e.g. {@code pro}
 * @param endpoint       the endpoint's name, e.g. {@code scan}
 * @param limit          the limit that was checked
 * @param decision       the store's decision
 * @param shadow         true when the limit is in shadow mode: a rejection was reported but not enforced
 * @param decisionMicros the time the decision took, in microseconds
 */
public record DecisionEvent(String tier, String endpoint, Limit limit, Decision decision, boolean shadow,
                            long decisionMicros) {
    /** Checks that no object is null. */
    public DecisionEvent {
        Objects.requireNonNull(tier, "tier");
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(limit, "limit");
        Objects.requireNonNull(decision, "decision");
    }
}
