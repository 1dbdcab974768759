/**
 * Turns a results directory (JMH JSON, the memory, Redis and HTTP measurements, JFR profiles)
 * into {@code BENCHMARKS.md}: {@link dev.ratelimit.bench.report.BenchmarksReport}.
 */
package dev.ratelimit.bench.report;
