package dev.ratelimit.store.redis;

/**
 * How an attempt that concurrent callers share (creating the client, loading the function library)
 * ends when the thread making it was interrupted: that thread was cancelled, Redis did not fail, so
 * the waiting callers make the attempt again rather than share the failure. Only the interrupted
 * thread sees {@link #failure()}.
 */
final class CancelledAttempt extends RuntimeException {

    CancelledAttempt(RuntimeException failure) {
        super(failure.getMessage(), failure, false, false);
    }

    /** What the interrupted thread's attempt threw. */
    RuntimeException failure() {
        return (RuntimeException) getCause();
    }
}
