package dev.ratelimit.example.client;

import java.time.Duration;

/**
 * How {@link ResilientClient} waits: {@link #system()} sleeps the thread; tests pass one that moves
 * a manual clock instead, so a minute of back-off takes no time.
 */
@FunctionalInterface
public interface Sleeper {

    /** Waits for {@code duration} (positive). */
    void sleep(Duration duration) throws InterruptedException;

    /** {@link Thread#sleep(long, int)}. */
    static Sleeper system() {
        return d -> Thread.sleep(d.toMillis(), d.toNanosPart() % 1_000_000);
    }
}
