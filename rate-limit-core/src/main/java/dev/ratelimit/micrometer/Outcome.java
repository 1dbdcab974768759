package dev.ratelimit.micrometer;

import dev.ratelimit.DecisionEvent;

/** The {@code outcome} tag of a decision, from its verdict, its source and shadow mode. */
enum Outcome {
    ALLOWED("allowed"),
    REJECTED("rejected"),
    SHADOW_REJECTED("shadow_rejected"),
    FAILED_OPEN("failed_open"),
    FALLBACK_ALLOWED("fallback_allowed"),
    FALLBACK_REJECTED("fallback_rejected"),
    UNAVAILABLE("unavailable");

    final String tag;

    Outcome(String tag) {
        this.tag = tag;
    }

    static Outcome of(DecisionEvent event) {
        boolean allowed = event.decision().allowed();
        switch (event.decision().source()) {
            case FAIL_OPEN:
                return FAILED_OPEN;
            case FAIL_CLOSED:
                return UNAVAILABLE;
            case LOCAL_FALLBACK:
                if (!allowed && event.shadow()) {
                    return SHADOW_REJECTED;
                }
                return allowed ? FALLBACK_ALLOWED : FALLBACK_REJECTED;
            default:
                if (allowed) {
                    return ALLOWED;
                }
                return event.shadow() ? SHADOW_REJECTED : REJECTED;
        }
    }
}
