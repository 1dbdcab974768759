package dev.ratelimit.servlet;

/**
 * An extension point broke its contract (a {@code ClientIdResolver} returned null). Handled like any
 * failure of it, by the failure mode; its message names the class and what it did, never request data,
 * so the filter's warning shows it.
 */
final class BrokenExtension extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    BrokenExtension(String message) {
        super(message);
    }
}
