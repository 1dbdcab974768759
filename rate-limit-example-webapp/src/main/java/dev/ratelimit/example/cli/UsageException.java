package dev.ratelimit.example.cli;

/** A bad command line; the message is one line naming the flag and the value. */
public final class UsageException extends Exception {
    private static final long serialVersionUID = 1L;

    public UsageException(String message) {
        super(message);
    }
}
