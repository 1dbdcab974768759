package dev.ratelimit.reliability;

/**
 * One request of a load and its answer, as the client saw it.
 *
 * @param instance       which app instance it went to (index into the load's instances)
 * @param key            the API key sent
 * @param sentMicros     wall-clock time the request left
 * @param answeredMicros wall-clock time the answer (or the failure) came back
 * @param status         the HTTP status, or -1 when no answer came (connection failed, timed out)
 * @param retryAfter     the {@code Retry-After} header, or null
 * @param remaining      {@code X-RateLimit-Remaining}, or null
 * @param limit          {@code X-RateLimit-Limit}, or null
 */
record Exchange(int instance, String key, long sentMicros, long answeredMicros, int status, String retryAfter,
                String remaining, String limit) {
    static final int NO_ANSWER = -1;

    boolean admitted() {
        return status / 100 == 2;
    }

    long latencyMicros() {
        return answeredMicros - sentMicros;
    }

    /** Sent at or after {@code from} and answered before {@code to}. */
    boolean within(long from, long to) {
        return sentMicros >= from && answeredMicros < to;
    }
}
