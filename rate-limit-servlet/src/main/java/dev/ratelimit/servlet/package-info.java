/**
 * The servlet filter: {@link dev.ratelimit.servlet.RateLimitFilter}, declared in {@code web.xml} with
 * init-params or built in code with {@link dev.ratelimit.servlet.RateLimitFilterBuilder}. Client
 * identity lives in {@code .client}, the response headers in {@code .headers}, the problem+json bodies
 * in {@code .problem}.
 */
package dev.ratelimit.servlet;
