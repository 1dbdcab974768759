package dev.ratelimit;

/**
 * Why the servlet filter answered a request it meant to limit without a decision, as told to
 * {@link RateLimitListener#onUndecided}. Requests the filter does not limit (allowlisted, CORS
 * preflights, unmatched paths when those are unlimited) are neither decisions nor undecided.
 */
public enum Undecided {
    /**
     * The client could not be identified: a malformed API key, or a custom {@code ClientIdResolver}'s
     * {@code InvalidClientException}. Answered 400, or passed on in shadow mode; counted against no one.
     */
    INVALID_CLIENT,
    /**
     * Deciding failed unexpectedly (a custom resolver or store threw, a class was missing): the
     * request was passed on or answered 503, as the failure mode says.
     */
    FAILURE
}
