/**
 * The load check: {@link dev.ratelimit.example.loadcheck.LoadCheck} runs virtual clients across
 * tiers and endpoints against one or more instances for a while, then prints what each tier and
 * endpoint admitted and fails when any client was admitted more than its limit's algorithm allows
 * ({@link dev.ratelimit.example.limits.AdmissionBound}).
 */
package dev.ratelimit.example.loadcheck;
