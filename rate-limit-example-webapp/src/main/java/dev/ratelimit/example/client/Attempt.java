package dev.ratelimit.example.client;

import java.time.Duration;
import java.util.OptionalLong;

/**
 * One try of a request by {@link ResilientClient}: how long it waited before sending and why, then
 * what came back.
 *
 * @param number       1 for the first try, 2 for the first retry, ...
 * @param waitedBefore the wait just before this try (zero when none)
 * @param waitReason   why it waited, e.g. {@code Retry-After 1s} or {@code paced: 1 left of 10}; empty when it did not
 * @param status       the HTTP status, or -1 when the exchange failed ({@link #error})
 * @param remaining    the quota left according to the response's headers, when it had them
 * @param error        the I/O failure, or empty
 */
public record Attempt(int number, Duration waitedBefore, String waitReason, int status, OptionalLong remaining, String error) {
}
