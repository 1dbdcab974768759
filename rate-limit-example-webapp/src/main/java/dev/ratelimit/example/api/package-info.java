/**
 * The example's endpoints as plain servlets, shared by both deployment shapes: {@code web.xml}
 * names them in the WAR, {@code dev.ratelimit.example.server} registers them in code. They know
 * nothing about rate limiting; the filter in front of them does it all.
 */
package dev.ratelimit.example.api;
