package dev.ratelimit.example.server;

/**
 * A setting with a bad value: the message is one line naming the setting as it was given
 * ({@code PORT} or {@code --port}), its value (a Redis password masked) and the problem.
 */
final class OptionException extends Exception {
    private static final long serialVersionUID = 1L;

    OptionException(String message) {
        super(message);
    }
}
