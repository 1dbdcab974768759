/**
 * The bodies of the filter's own answers (429, 400, 503): RFC 9457 problem details written with
 * Jackson as {@code application/problem+json}.
 */
package dev.ratelimit.servlet.problem;
