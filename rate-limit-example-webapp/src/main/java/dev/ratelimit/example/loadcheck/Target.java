package dev.ratelimit.example.loadcheck;

import dev.ratelimit.Limit;

/**
 * What one virtual client hammers: a tier's endpoint, the request that reaches it, and the limit it
 * must be held to.
 *
 * @param apiKey the client's own key (its tier's prefix, then the run id and the client's number)
 * @param body   the JSON body, or null
 */
record Target(String tier, String endpoint, String method, String path, String body, Limit limit, long cost, String apiKey) {
}
