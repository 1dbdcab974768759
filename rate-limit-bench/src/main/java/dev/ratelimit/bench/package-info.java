/**
 * Benchmarks of the rate limiter, side by side with the libraries users would pick instead.
 *
 * <p>{@code memory}: per-key decisions in one JVM (ours, Bucket4j, Guava, Resilience4j, a bare map
 * as the floor) and bytes per tracked client; {@code redis}: decisions against one local
 * redis-server (ours, Bucket4j's Jedis proxy manager, an EVALSHA {@code return 1} ceiling);
 * {@code report}: turns the results into {@code BENCHMARKS.md}. Nothing here runs during
 * {@code mvn verify}; {@code rate-limit-bench/run-benchmarks.sh} runs it all.
 */
package dev.ratelimit.bench;
