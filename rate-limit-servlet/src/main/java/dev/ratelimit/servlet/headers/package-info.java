/**
 * The rate-limit response header fields: the {@code X-RateLimit-*} set, the IETF
 * {@code RateLimit-Policy} / {@code RateLimit} set of draft-ietf-httpapi-ratelimit-headers-10, and
 * {@code Retry-After}, all computed from one {@link dev.ratelimit.Decision}.
 */
package dev.ratelimit.servlet.headers;
