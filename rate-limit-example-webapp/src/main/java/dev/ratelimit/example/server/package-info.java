/**
 * The executable jar: {@link dev.ratelimit.example.server.Main} reads the environment and
 * command-line flags ({@link dev.ratelimit.example.server.Setting}), builds the application once
 * (store, listener, filter, servlets: {@code ExampleApp}), serves it on embedded Jetty 12 and stops
 * gracefully on SIGTERM.
 */
package dev.ratelimit.example.server;
