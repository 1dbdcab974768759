package dev.ratelimit.reliability;

import org.awaitility.Awaitility;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Client threads sending requests back to back (a closed loop: each thread waits for its answer
 * before the next request) to app instances until {@link #stop()}, every exchange recorded. While it
 * runs, a test kills, pauses or fails over Redis; afterwards it reads the exchanges.
 *
 * <pre>{@code
 * try (ClosedLoad load = ClosedLoad.start(List.of(a.uri(), b.uri()), 32, (thread, n) -> new ClosedLoad.Request(
 *         (int) (n % 2), "/api/scan", "sk-free-" + thread % 8))) {
 *     ... redis.kill(); ...
 *     load.stop();
 *     List<Exchange> all = load.exchanges();
 * }
 * }</pre>
 */
final class ClosedLoad implements AutoCloseable {
    /** One request: the instance (index into the bases), the path, the API key (null for none). */
    record Request(int instance, String path, String key) {
    }

    /** What thread {@code thread} sends as its {@code n}-th request (n from 0). */
    @FunctionalInterface
    interface Plan {
        Request next(int thread, long n);
    }

    private final List<Thread> threads = new ArrayList<>();
    private final List<List<Exchange>> recorded = new ArrayList<>();
    private final CountDownLatch started;
    private final AtomicLong answered = new AtomicLong();
    private volatile boolean running = true;

    private ClosedLoad(List<URI> bases, int threadCount, Plan plan) {
        Http http = new Http();
        started = new CountDownLatch(threadCount);
        for (int t = 0; t < threadCount; t++) {
            List<Exchange> mine = new ArrayList<>();
            recorded.add(mine);
            int thread = t;
            Thread worker = new Thread(() -> {
                started.countDown();
                for (long n = 0; running; n++) {
                    Request r = plan.next(thread, n);
                    mine.add(http.get(r.instance(), bases.get(r.instance()), r.path(), r.key()));
                    answered.incrementAndGet();
                }
            }, "closed-load-" + t);
            worker.setDaemon(true);
            threads.add(worker);
        }
    }

    /** Starts {@code threadCount} threads sending what {@code plan} says to {@code bases}. */
    static ClosedLoad start(List<URI> bases, int threadCount, Plan plan) {
        ClosedLoad load = new ClosedLoad(bases, threadCount, plan);
        load.threads.forEach(Thread::start);
        try {
            load.started.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return load;
    }

    /**
     * Lets the load run for {@code d}: returns once {@code d} has passed and answers kept coming
     * meanwhile (a load that stalled fails here rather than measuring nothing).
     */
    void runFor(Duration d) {
        long until = WallClock.now() + d.toNanos() / 1_000;
        long before = answered.get();
        Awaitility.await("load running for " + d).atMost(d.plusSeconds(30)).pollInterval(Duration.ofMillis(10))
                .until(() -> WallClock.now() >= until && answered.get() > before);
    }

    /** Stops sending and waits for the requests in flight to be answered. */
    void stop() {
        running = false;
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Every exchange, once {@link #stop()}ped. */
    List<Exchange> exchanges() {
        if (threads.stream().anyMatch(Thread::isAlive)) {
            throw new IllegalStateException("stop() the load before reading its exchanges");
        }
        List<Exchange> all = new ArrayList<>();
        recorded.forEach(all::addAll);
        return all;
    }

    @Override
    public void close() {
        stop();
    }
}
