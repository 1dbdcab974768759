package dev.ratelimit.micrometer;

import dev.ratelimit.Decision;
import dev.ratelimit.DecisionEvent;
import dev.ratelimit.Source;
import dev.ratelimit.Verdict;

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

    /**
     * The verdict first: a store that could not decide is a 503 whoever answered it (the fail-closed
     * mode, or a local fallback that failed too), or let through in shadow mode, and a cost above the
     * limit is refused whatever the failure mode; only then does the source tell allowed, fail-open
     * and fallback apart.
     */
    static Outcome of(DecisionEvent event) {
        Decision d = event.decision();
        if (d.verdict() == Verdict.STORE_UNAVAILABLE) {
            // Shadow mode lets it through: the store failed and the request passed, as with FAIL_OPEN.
            return event.shadow() ? FAILED_OPEN : UNAVAILABLE;
        }
        boolean fallback = d.source() == Source.LOCAL_FALLBACK;
        if (d.allowed()) {
            return d.source() == Source.FAIL_OPEN ? FAILED_OPEN : fallback ? FALLBACK_ALLOWED : ALLOWED;
        }
        if (event.shadow()) {
            return SHADOW_REJECTED;
        }
        return fallback ? FALLBACK_REJECTED : REJECTED;
    }
}
