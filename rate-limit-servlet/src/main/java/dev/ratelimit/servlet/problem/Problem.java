package dev.ratelimit.servlet.problem;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * An RFC 9457 problem detail, as the filter sends it with {@code application/problem+json}: the
 * standard members plus {@code error} (a stable code), and where they apply {@code retry_after}
 * (seconds), {@code tier}, {@code endpoint}, {@code policy} (the {@code RateLimit} item name) and
 * {@code limit} (that policy's quota). Absent members are left out.
 *
 * <pre>{@code
 * {"type":"urn:dev-ratelimit:rate-limited","title":"Too Many Requests","status":429,
 *  "detail":"Too many requests to scan for tier free: 10 allowed; retry after 1 s.",
 *  "error":"rate_limited","retry_after":1,"tier":"free","endpoint":"scan","policy":"scan","limit":10}
 * }</pre>
 *
 * <p>Nothing in a problem comes from the request: no API key, no header value.
 * The {@code type} URNs are stable identifiers to match on, not links.
 *
 * @param type       one of the URNs below, e.g. {@link #RATE_LIMITED}
 * @param title      the HTTP status's reason phrase, e.g. {@code Too Many Requests}
 * @param status     the HTTP status code
 * @param detail     a sentence for the client
 * @param error      a stable code, e.g. {@code rate_limited}
 * @param retryAfter seconds until a retry may pass, or null
 * @param tier       the client's tier, or null
 * @param endpoint   the endpoint's name, or null
 * @param policy     the {@code RateLimit} item name of the policy that refused, or null
 * @param limit      that policy's quota, or null
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"type", "title", "status", "detail", "error", "retry_after", "tier", "endpoint", "policy", "limit"})
public record Problem(String type, String title, int status, String detail, String error,
                      @JsonProperty("retry_after") Long retryAfter, String tier, String endpoint, String policy,
                      Long limit) {
    /** Over the limit for now: 429 with Retry-After. */
    public static final String RATE_LIMITED = "urn:dev-ratelimit:rate-limited";
    /** The request costs more than the limit ever allows: 429 without Retry-After, do not retry. */
    public static final String COST_EXCEEDS_LIMIT = "urn:dev-ratelimit:cost-exceeds-limit";
    /** The client's identity is unusable (e.g. a malformed API key): 400. */
    public static final String INVALID_CLIENT = "urn:dev-ratelimit:invalid-client";
    /** The limiter could not decide and fails closed: 503 with Retry-After. */
    public static final String UNAVAILABLE = "urn:dev-ratelimit:unavailable";

    /**
     * 429: over {@code limit} of {@code policy} for now; retry after {@code retryAfterSeconds}.
     *
     * @param tier              the client's tier
     * @param endpoint          the endpoint's name
     * @param policy            the {@code RateLimit} item name of the policy that refused
     * @param limit             that policy's quota
     * @param retryAfterSeconds the {@code Retry-After} sent
     * @return the problem
     */
    public static Problem rateLimited(String tier, String endpoint, String policy, long limit, long retryAfterSeconds) {
        return new Problem(RATE_LIMITED, "Too Many Requests", 429,
                "Too many requests to " + endpoint + " for tier " + tier + ": " + limit + " allowed; retry after "
                        + retryAfterSeconds + " s.",
                "rate_limited", retryAfterSeconds, tier, endpoint, policy, limit);
    }

    /**
     * 429: a request of {@code cost} can never pass a limit of {@code limit}.
     *
     * @param tier     the client's tier
     * @param endpoint the endpoint's name
     * @param policy   the {@code RateLimit} item name of the policy it exceeds
     * @param limit    that policy's quota
     * @param cost     the request's cost
     * @return the problem, without {@code retry_after}
     */
    public static Problem costExceedsLimit(String tier, String endpoint, String policy, long limit, long cost) {
        return new Problem(COST_EXCEEDS_LIMIT, "Request Cost Exceeds Limit", 429,
                "This request to " + endpoint + " costs " + cost + " but tier " + tier + " allows at most " + limit
                        + "; it can never pass, do not retry.",
                "cost_exceeds_limit", null, tier, endpoint, policy, limit);
    }

    /**
     * 400: the client's identity is unusable; {@code detail} must not contain the offending value.
     *
     * @param error  a stable code, e.g. {@code invalid_api_key}
     * @param detail a sentence for the client
     * @return the problem
     */
    public static Problem invalidClient(String error, String detail) {
        return new Problem(INVALID_CLIENT, "Bad Request", 400, detail, error, null, null, null, null, null);
    }

    /**
     * 503: the limiter cannot decide now and fails closed.
     *
     * @param tier              the client's tier, or null
     * @param endpoint          the endpoint's name, or null
     * @param retryAfterSeconds the {@code Retry-After} sent
     * @return the problem
     */
    public static Problem unavailable(String tier, String endpoint, long retryAfterSeconds) {
        return new Problem(UNAVAILABLE, "Service Unavailable", 503,
                "Rate limiting is temporarily unavailable; retry after " + retryAfterSeconds + " s.",
                "rate_limit_unavailable", retryAfterSeconds, tier, endpoint, null, null);
    }
}
