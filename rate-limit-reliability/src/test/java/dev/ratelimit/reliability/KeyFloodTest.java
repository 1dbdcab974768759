package dev.ratelimit.reliability;

import dev.ratelimit.Clock;
import dev.ratelimit.example.server.EmbeddedExample;
import dev.ratelimit.store.memory.MemoryStore;
import dev.ratelimit.testing.RedisServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A flood of distinct API keys, each sent once, as a client inventing keys would send them. In
 * memory, the store keeps at most its configured cap of keys per limit (the example's default,
 * {@link MemoryStore#DEFAULT_MAX_KEYS_PER_LIMIT}), so the heap after a full GC grows while the
 * limit fills up to the cap, then stays flat however many more keys come. On Redis, every key the
 * limiter created carries a TTL (SCAN, then PTTL of each key).
 *
 * <p>For speed the requests go through Jetty's in-process connector ({@code EmbeddedExample.respond}):
 * the same parser, filter, store and servlets as over TCP, without a socket per request.
 */
@Tag("reliability")
class KeyFloodTest {
    private static final int THREADS = 2;

    @Test
    void theHeapStaysFlatOnceTheInMemoryStoreHoldsItsCapOfKeys() {
        int keys = Scale.floodKeys();
        int cap = MemoryStore.DEFAULT_MAX_KEYS_PER_LIMIT;
        int step = keys / 10;
        List<long[]> samples = new ArrayList<>();
        long started = WallClock.now();
        try (EmbeddedExample app = EmbeddedExample.start(Map.of(), Clock.system())) {
            // One request first, so that what is measured is the keys, not the first use of the app.
            assertThat(app.respond(request("GET", "/api/reports", "sk-free-flood-warm-up"))).startsWith("HTTP/1.1 200 ");
            samples.add(new long[] {0, Heap.usedAfterGc()});
            for (int done = 0; done < keys; done += step) {
                int from = done;
                Map<Integer, Long> statuses = flood(THREADS, step, i -> request("GET", "/api/reports", "sk-free-flood-" + (from + i)), app);
                assertThat(statuses).as("keys %d to %d", from, from + step).containsOnlyKeys(200);
                samples.add(new long[] {done + step, Heap.usedAfterGc()});
            }
        }
        long seconds = (WallClock.now() - started) / 1_000_000;
        long atCap = heapAt(samples, cap);
        long first = samples.get(0)[1];
        long last = samples.get(samples.size() - 1)[1];
        long highestAfterCap = samples.stream().filter(s -> s[0] >= cap).mapToLong(s -> s[1]).max().orElseThrow();
        // The plateau: from one step past the cap on, when every new key evicts one.
        List<long[]> plateau = samples.stream().filter(s -> s[0] > cap).toList();
        long plateauSpread = plateau.stream().mapToLong(s -> s[1]).max().orElseThrow() - plateau.stream().mapToLong(s -> s[1]).min().orElseThrow();
        Report.section("Key flood, in-memory app (" + keys + " distinct API keys on GET /api/reports, cap "
                        + cap + " keys per limit, in-process connector, " + THREADS + " threads)",
                "| keys sent | heap after full GC |\n|---|---|\n"
                        + samples.stream().map(s -> "| " + s[0] + " | " + Report.mib(s[1]) + " |").collect(Collectors.joining("\n"))
                        + "\n\nGrowth up to the cap: " + Report.mib(atCap - first) + "; after the cap: highest "
                        + Report.mib(highestAfterCap - atCap) + " above the sample at the cap; spread of the plateau ("
                        + plateau.size() + " samples past the cap) " + Report.mib(plateauSpread) + "; " + seconds + " s.\n");

        assertThat(atCap - first).as("filling the store up to its cap takes memory").isPositive();
        assertThat(plateau).as("samples past the cap").hasSizeGreaterThanOrEqualTo(2);
        assertThat(plateauSpread).as("heap spread past the cap (bytes)").isLessThan(Math.max(1_048_576L, (atCap - first) / 8));
        assertThat(highestAfterCap - atCap).as("heap beyond the cap over the sample at the cap (bytes)")
                .isLessThan(Math.max(2L * 1_048_576, (atCap - first) / 4));
        assertThat(last).as("heap at the end").isLessThan(atCap + Math.max(2L * 1_048_576, (atCap - first) / 4));
    }

    @Test
    void everyKeyTheLimiterCreatesInRedisCarriesATtl() {
        int keys = Scale.redisFloodKeys();
        String[] tiers = {"sk-free-", "sk-pro-", "sk-ent-"};
        String[][] endpoints = {{"GET", "/api/scan"}, {"GET", "/api/reports"}, {"POST", "/api/login"}};
        Map<Integer, Long> statuses;
        List<String> stored;
        List<Long> ttls;
        long seconds;
        try (RedisServer redis = RedisServer.start();
             EmbeddedExample app = EmbeddedExample.start(Apps.env(redis.url(), "RATE_LIMIT_FAILURE_MODE", "FAIL_CLOSED",
                     "RATE_LIMIT_REDIS_TIMEOUT", "2s"), Clock.system())) {
            long started = WallClock.now();
            statuses = flood(4, keys, i -> {
                String[] endpoint = endpoints[(i / 3) % 3];
                return request(endpoint[0], endpoint[1], tiers[i % 3] + "ttl-flood-" + i);
            }, app);
            seconds = (WallClock.now() - started) / 1_000_000;
            stored = RedisKeys.all(redis.port());
            ttls = RedisKeys.pttl(redis.port(), stored);
        }
        long withoutTtl = ttls.stream().filter(t -> t == -1).count();
        Map<String, long[]> byLimit = new TreeMap<>();
        for (int i = 0; i < stored.size(); i++) {
            long ttl = ttls.get(i);
            if (ttl >= 0) {
                long[] minMax = byLimit.computeIfAbsent(stored.get(i).split(":")[1] + ":" + stored.get(i).split(":")[2],
                        k -> new long[] {Long.MAX_VALUE, 0, 0});
                minMax[0] = Math.min(minMax[0], ttl);
                minMax[1] = Math.max(minMax[1], ttl);
                minMax[2]++;
            }
        }
        Report.section("Key flood on Redis (" + keys + " distinct API keys over 3 tiers x 3 endpoints, in-process connector)",
                Report.fmt("Requests: %s in %d s. Keys in Redis afterwards: %d (keys of limits that are full again expire "
                                + "within a second or two: free scan refills 1 token/s). Keys without a TTL: %d. Every key in the "
                                + "documented layout: %s.%n%n| limit:fingerprint | keys | PTTL min | PTTL max |%n|---|---|---|---|%n",
                        statuses, seconds, stored.size(), withoutTtl,
                        stored.stream().allMatch(k -> RedisKeyLayout.KEY.matcher(k).matches()))
                        + byLimit.entrySet().stream().map(e -> "| " + e.getKey() + " | " + e.getValue()[2] + " | "
                        + e.getValue()[0] + " ms | " + e.getValue()[1] + " ms |").collect(Collectors.joining("\n")));

        assertThat(statuses).as("every flood request decided by Redis").containsOnlyKeys(200);
        assertThat(stored).as("keys the limiter created").isNotEmpty();
        assertThat(withoutTtl).as("keys without a TTL").isZero();
        assertThat(stored).as("keys: hashes in the documented layout").allMatch(k -> RedisKeyLayout.KEY.matcher(k).matches());
    }

    private static String request(String method, String path, String key) {
        return method + " " + path + " HTTP/1.1\r\nHost: x\r\nX-API-Key: " + key + "\r\n"
                + (method.equals("POST") ? "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}" : "Connection: close\r\n\r\n");
    }

    /** Sends {@code count} requests, {@code request(i)} for i in 0..count-1, over {@code threads} threads; status counts. */
    private static Map<Integer, Long> flood(int threads, int count, IntFunction<String> request, EmbeddedExample app) {
        AtomicLong next = new AtomicLong();
        Map<Integer, Long> statuses = new java.util.concurrent.ConcurrentHashMap<>();
        List<Thread> workers = new ArrayList<>();
        List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread worker = new Thread(() -> {
                try {
                    for (long i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
                        String answer = app.respond(request.apply((int) i));
                        statuses.merge(Integer.parseInt(answer.substring(9, 12)), 1L, Long::sum);
                    }
                } catch (RuntimeException | Error e) {
                    failures.add(e);
                }
            }, "key-flood-" + t);
            workers.add(worker);
            worker.start();
        }
        for (Thread w : workers) {
            try {
                w.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        assertThat(failures).as("in-process requests that failed").isEmpty();
        return new TreeMap<>(statuses);
    }

    /** The heap sample taken at {@code keys} keys or the first after it. */
    private static long heapAt(List<long[]> samples, long keys) {
        return samples.stream().filter(s -> s[0] >= keys).findFirst().orElseThrow()[1];
    }
}
