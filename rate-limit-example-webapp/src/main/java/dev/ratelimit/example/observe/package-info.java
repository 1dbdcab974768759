/**
 * What the executable example serves about itself: {@code /metrics} (the registry that
 * {@link dev.ratelimit.micrometer.MicrometerListener} records into, in Prometheus' text format) and
 * {@code /dashboard} (one page of live charts, drawn in the browser from {@code /metrics}). Neither
 * is rate limited: the filter is on {@code /api/*}. Only the embedded-Jetty jar serves them; the WAR
 * leaves this package out.
 */
package dev.ratelimit.example.observe;
