package dev.ratelimit.store.redis;

import java.util.concurrent.CompletionException;

/**
 * How an attempt that concurrent callers share (creating the client, loading the function library)
 * ends when the thread making it was interrupted: that thread was cancelled, Redis did not fail, so
 * the waiting callers make the attempt again rather than share the failure. Only the interrupted
 * thread sees {@link #failure()}. The two static methods are the whole protocol: the maker completes
 * the shared future with {@link #outcome}, and each waiter whose wait failed calls {@link #retryOrThrow}.
 */
final class CancelledAttempt extends RuntimeException {

    private CancelledAttempt(RuntimeException failure) {
        super(failure.getMessage(), failure, false, false);
    }

    /** What the interrupted thread's attempt threw. */
    RuntimeException failure() {
        return (RuntimeException) getCause();
    }

    /**
     * What a shared attempt that failed with {@code failure}, in the calling thread, completes with: a
     * {@code CancelledAttempt} when that thread's interrupt ended it, else the failure itself.
     */
    static Throwable outcome(Throwable failure) {
        return failure instanceof RuntimeException r && CallFailure.isCancellation(r) ? new CancelledAttempt(r) : failure;
    }

    /**
     * For a caller whose wait for a shared attempt failed with {@code e}: returns when it should make the
     * attempt again (another thread's interrupt ended it, and this thread was not interrupted meanwhile);
     * otherwise throws what the caller must see, as itself ({@code RuntimeException} or {@code Error},
     * which callers tell apart from a failing Redis).
     *
     * @param mine whether this thread made the attempt
     */
    static void retryOrThrow(CompletionException e, boolean mine) {
        Throwable cause = e.getCause();
        if (cause instanceof CancelledAttempt cancelled) {
            if (mine || Thread.currentThread().isInterrupted()) {
                throw cancelled.failure(); // this thread's cancellation: no attempt of its own
            }
            return;
        }
        if (cause instanceof Error error) {
            throw error;
        }
        throw cause instanceof RuntimeException r ? r : e;
    }
}
