/** Command-line flags ({@code --name=value}) for the example's CLIs, checked with errors naming the flag. */
package dev.ratelimit.example.cli;
