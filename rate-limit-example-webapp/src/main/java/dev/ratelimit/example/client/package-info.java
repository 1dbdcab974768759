/**
 * {@link dev.ratelimit.example.client.ResilientClient}: a {@code java.net.http} client that behaves
 * well against a rate-limited API (backs off with full jitter, honours {@code Retry-After} and the
 * rate-limit headers, paces itself before it hits the limit, never waits or retries without bound),
 * and {@link dev.ratelimit.example.client.ClientCli}, which shows it at work request by request.
 */
package dev.ratelimit.example.client;
