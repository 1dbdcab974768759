/**
 * What a configured limit means in numbers a person or a check can use: a one-line description for
 * the start-up log ({@link dev.ratelimit.example.limits.PolicyText}), and the most requests each
 * algorithm may admit for one client over an interval ({@link dev.ratelimit.example.limits.AdmissionBound}),
 * which the load check holds the servers to.
 */
package dev.ratelimit.example.limits;
