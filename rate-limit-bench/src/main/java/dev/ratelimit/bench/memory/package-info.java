/**
 * In-memory per-key rate limiting, ours against the peers, each behind one small {@link
 * dev.ratelimit.bench.memory.Contender} adapter (as Caffeine's benchmarks compare caches):
 * {@link dev.ratelimit.bench.memory.InMemoryBenchmark} measures decisions per second and
 * allocation per decision, {@link dev.ratelimit.bench.memory.MemoryFootprint} bytes per tracked
 * client.
 */
package dev.ratelimit.bench.memory;
