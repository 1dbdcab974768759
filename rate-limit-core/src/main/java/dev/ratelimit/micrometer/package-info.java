/**
 * The Micrometer binding: {@link dev.ratelimit.micrometer.MicrometerListener} turns listener events
 * into counters, timers and gauges. Micrometer is an optional dependency: add
 * {@code io.micrometer:micrometer-core} to use it.
 */
package dev.ratelimit.micrometer;
