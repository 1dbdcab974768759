/**
 * The algorithms' maths as pure functions over a key's state and the current time. Internal: the
 * in-memory store runs them, the Redis store mirrors them in Lua, and the contract test checks the
 * two agree. Users configure algorithms through {@link dev.ratelimit.Policy}.
 */
package dev.ratelimit.algorithm;
