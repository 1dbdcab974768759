/**
 * Who sent a request and which tier they are in: the {@link dev.ratelimit.servlet.client.ClientIdResolver}
 * and {@link dev.ratelimit.servlet.client.TierResolver} seams with their defaults (API key or client
 * IP; tier by key prefix), trusted proxies and their forwarding headers, and IP literals parsed and
 * printed without name lookups.
 */
package dev.ratelimit.servlet.client;
