package dev.ratelimit;

/**
 * One decided request, as told to {@link RateLimitListener#onDecision}.
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
}
