package dev.ratelimit.reliability;

import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.DelayQueue;
import java.util.concurrent.Delayed;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Clients that each send one request every {@code interval} (an open schedule: a client due now is
 * sent by the next free worker thread), for soaks that must run for minutes in constant memory:
 * nothing is kept per request, only per client counters and the latencies of the current window.
 * A client that falls behind its schedule (workers all busy) skips ahead rather than bursting.
 */
final class PacedLoad implements AutoCloseable {
    /** One client: its key, request, schedule and counters. */
    static final class Client implements Delayed {
        final String key;
        final String method;
        final String path;
        final long intervalMicros;
        final AtomicLong sent = new AtomicLong();
        final AtomicLong admitted = new AtomicLong();
        final AtomicLong rejected = new AtomicLong();
        final AtomicLong errors = new AtomicLong();
        volatile long firstSent = -1;
        volatile long lastAnswered = -1;
        private long dueMicros;
        private long turn;

        Client(String key, String method, String path, long intervalMicros, long firstDueMicros) {
            this.key = key;
            this.method = method;
            this.path = path;
            this.intervalMicros = intervalMicros;
            this.dueMicros = firstDueMicros;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(dueMicros - WallClock.now(), TimeUnit.MICROSECONDS);
        }

        @Override
        public int compareTo(Delayed other) {
            return Long.compare(dueMicros, ((Client) other).dueMicros);
        }
    }

    /** Latencies of one window, in a buffer reused from window to window. */
    private static final class Window {
        final long[] micros = new long[1 << 20];
        final AtomicInteger count = new AtomicInteger();
    }

    private final List<URI> instances;
    private final List<Client> clients;
    private final DelayQueue<Client> due = new DelayQueue<>();
    private final List<Thread> workers = new ArrayList<>();
    private final AtomicReference<Window> window = new AtomicReference<>(new Window());
    private Window spare = new Window();
    private final Http http = new Http();
    private final java.util.Map<Integer, Long> errorStatuses = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile boolean running = true;

    private PacedLoad(List<URI> instances, List<Client> clients, int threads) {
        this.instances = instances;
        this.clients = List.copyOf(clients);
        due.addAll(clients);
        for (int t = 0; t < threads; t++) {
            Thread worker = new Thread(this::work, "paced-load-" + t);
            worker.setDaemon(true);
            workers.add(worker);
        }
    }

    static PacedLoad start(List<URI> instances, List<Client> clients, int threads) {
        PacedLoad load = new PacedLoad(instances, clients, threads);
        load.workers.forEach(Thread::start);
        return load;
    }

    private void work() {
        try {
            while (running) {
                Client c = due.poll(100, TimeUnit.MILLISECONDS);
                if (c == null) {
                    continue;
                }
                long turn = c.turn++;
                int instance = (int) (turn % instances.size());
                Exchange e = http.send(instance, c.method, instances.get(instance), c.path, c.key);
                if (c.firstSent < 0) {
                    c.firstSent = e.sentMicros();
                }
                c.lastAnswered = e.answeredMicros();
                c.sent.incrementAndGet();
                if (e.admitted()) {
                    c.admitted.incrementAndGet();
                } else if (e.status() == 429) {
                    c.rejected.incrementAndGet();
                } else {
                    c.errors.incrementAndGet();
                    errorStatuses.merge(e.status(), 1L, Long::sum);
                }
                Window w = window.get();
                int i = w.count.getAndIncrement();
                if (i < w.micros.length) {
                    w.micros[i] = e.latencyMicros();
                }
                long now = WallClock.now();
                c.dueMicros = Math.max(c.dueMicros + c.intervalMicros, now - c.intervalMicros);
                due.put(c);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Ends the current window: its latencies, and a fresh window from now on. */
    synchronized Latencies closeWindow() {
        Window next = spare;
        next.count.set(0);
        Window done = window.getAndSet(next);
        spare = done;
        int n = Math.min(done.count.get(), done.micros.length);
        return Latencies.of(Arrays.copyOf(done.micros, n));
    }

    /** Status -> count of the answers that were neither 2xx nor 429 (-1: no answer). */
    java.util.Map<Integer, Long> errorStatuses() {
        return new java.util.TreeMap<>(errorStatuses);
    }

    List<Client> clients() {
        return clients;
    }

    /** Stops the workers once their requests in flight are answered. */
    @Override
    public void close() {
        running = false;
        for (Thread t : workers) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
