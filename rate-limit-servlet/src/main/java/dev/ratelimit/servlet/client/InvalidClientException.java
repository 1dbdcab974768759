package dev.ratelimit.servlet.client;

/**
 * A request's identity is unusable (e.g. an API key too long or with control characters). The filter
 * answers {@code 400} with a problem+json body made of {@link #error()} and {@link #detail()}, and
 * counts nothing against anyone.
 *
 * <p>The detail is shown to the client and logged: it must never contain the offending value.
 * Thrown on hostile input, so it carries no stack trace.
 */
public final class InvalidClientException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String error;

    /**
     * @param error  a short machine-readable code, e.g. {@code invalid_api_key}
     * @param detail a sentence for the client that names what is wrong, never the raw value
     */
    public InvalidClientException(String error, String detail) {
        super(detail, null, false, false);
        this.error = error;
    }

    /** The machine-readable code, e.g. {@code invalid_api_key}. */
    public String error() {
        return error;
    }

    /** The sentence for the client. */
    public String detail() {
        return getMessage();
    }
}
