package dev.ratelimit.store.redis;

import dev.ratelimit.RateLimiter;
import org.awaitility.Awaitility;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Threads that decide through one limiter, for 100 clients in turn, until closed: load for a fault to
 * meet. {@link #close()} stops them and rethrows what any of them threw.
 */
final class Deciders implements AutoCloseable {
    private final AtomicLong decisions = new AtomicLong();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final ExecutorService threads;
    private final List<Future<?>> running = new ArrayList<>();

    Deciders(int count, RateLimiter limiter) {
        threads = Executors.newFixedThreadPool(count);
        for (int t = 0; t < count; t++) {
            running.add(threads.submit(() -> {
                for (long n = 0; !stop.get(); n++) {
                    limiter.tryAcquire("client-" + n % 100);
                    decisions.incrementAndGet();
                }
                return null;
            }));
        }
    }

    /** Waits until {@code more} decisions have been made from now. */
    void awaitMore(long more) {
        long from = decisions.get();
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> decisions.get() > from + more);
    }

    @Override
    public void close() throws Exception {
        stop.set(true);
        try {
            for (Future<?> f : running) {
                f.get(10, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
    }
}
