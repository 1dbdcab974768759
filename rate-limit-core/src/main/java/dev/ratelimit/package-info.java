/**
 * The API: {@link dev.ratelimit.Policy policies} (five algorithms as validated records), a
 * {@link dev.ratelimit.Limit} of one or more policies, the {@link dev.ratelimit.RateLimiter} that
 * decides a key's request against it, the {@link dev.ratelimit.Decision} it returns, the
 * {@link dev.ratelimit.RateLimitStore} that keeps state, the {@link dev.ratelimit.Clock} seam and the
 * {@link dev.ratelimit.RateLimitListener} extension point.
 */
package dev.ratelimit;
