package dev.ratelimit.servlet.headers;

/**
 * Which rate-limit header fields a response carries. {@code Retry-After} is sent on every 503 and
 * every 429 that can be retried, whatever the style.
 */
public enum HeaderStyle {
    /** {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining}, {@code X-RateLimit-Reset}, {@code X-RateLimit-Tier}. */
    X,
    /** {@code RateLimit-Policy} and {@code RateLimit} (draft-ietf-httpapi-ratelimit-headers-10). */
    IETF,
    /** Both sets: the default. */
    BOTH;

    boolean x() {
        return this != IETF;
    }

    boolean ietf() {
        return this != X;
    }
}
