/**
 * The example application: {@code GET /api/scan}, {@code GET /api/reports}, {@code POST /api/login}
 * and {@code GET /health} behind {@link dev.ratelimit.servlet.RateLimitFilter}, in two deployment
 * shapes (a WAR configured by {@code web.xml}, an executable jar with embedded Jetty configured in
 * code), with a rate-limit-aware HTTP client and a load check. Packages:
 * {@code .api} (the servlets, the only classes in the WAR), {@code .server} (the executable jar),
 * {@code .client} ({@code ResilientClient} and its CLI), {@code .loadcheck} (the load-check CLI) and
 * {@code .limits} (describing limits and the admission bounds the load check enforces).
 */
package dev.ratelimit.example;
