/** The in-memory store: {@link dev.ratelimit.store.memory.MemoryStore}, bounded and lock-striped. */
package dev.ratelimit.store.memory;
