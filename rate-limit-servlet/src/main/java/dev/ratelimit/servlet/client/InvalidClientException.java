package dev.ratelimit.servlet.client;

/**
 * A request's identity is unusable (e.g. an API key too long or with control characters). The filter
 * answers {@code 400} with a problem+json body made of {@link #error()} and {@link #detail()}, and
 * counts nothing against anyone.
 *
 * <p>The detail is shown to the client: it must never contain the offending value. It is not logged
 * (hostile clients would write the log; {@code ratelimit_undecided_total{reason="invalid_client"}} and
 * the listener's {@code onUndecided} count them). Thrown on hostile input, so it carries no stack trace.
 */
public final class InvalidClientException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The machine-readable code. */
    private final String error;

    /** The code of an exception created without one. */
    public static final String DEFAULT_ERROR = "invalid_client";
    /** The detail of an exception created without one. */
    public static final String DEFAULT_DETAIL = "The request's client identity is not usable.";

    /**
     * An unusable identity, with a code and a detail for the client.
     *
     * @param error  a short machine-readable code, e.g. {@code invalid_api_key}; null for {@link #DEFAULT_ERROR}
     * @param detail a sentence for the client that names what is wrong, never the raw value; null for
     *               {@link #DEFAULT_DETAIL}
     */
    public InvalidClientException(String error, String detail) {
        super(detail == null ? DEFAULT_DETAIL : detail, null, false, false);
        this.error = error == null ? DEFAULT_ERROR : error;
    }

    /**
     * The machine-readable code.
     *
     * @return the code, e.g. {@code invalid_api_key}
     */
    public String error() {
        return error;
    }

    /**
     * The sentence for the client.
     *
     * @return the detail (the exception's message)
     */
    public String detail() {
        return getMessage();
    }
}
