/**
 * The reliability suite: real instances of the example app ({@code EmbeddedExample}) on real
 * {@code redis-server} processes and clusters, driven over real HTTP, through Redis kills, pauses and
 * failovers, 64 threads racing on one key, generated hostile requests, a flood of distinct keys and a
 * soak. Every test is tagged {@code reliability}; {@link dev.ratelimit.reliability.Scale} holds the
 * figures of the short form (in {@code mvn verify}) and the long form ({@code -Dreliability.long=true}).
 * The measured figures go to {@code target/reliability/results.md}; {@code RELIABILITY.md} quotes them.
 */
package dev.ratelimit.reliability;
