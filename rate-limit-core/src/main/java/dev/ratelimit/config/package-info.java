/**
 * Tier and endpoint configuration: {@link dev.ratelimit.config.RateLimitConfig}, built in code or
 * loaded from JSON with errors that name the JSON path, and the bundled seed table.
 */
package dev.ratelimit.config;
