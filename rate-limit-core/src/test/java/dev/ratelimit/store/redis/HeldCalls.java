package dev.ratelimit.store.redis;

import dev.ratelimit.Decision;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Test support: decisions made at once, each on a thread of its own. Sent while Redis holds its
 * clients ({@code CLIENT PAUSE}), each takes a pooled connection of its own, as under load.
 */
final class HeldCalls {
    private HeldCalls() {
    }

    /** One decision for each of {@code clients} at once; asserts that Redis made every one. */
    static void decidedTogetherByRedis(RateLimiter limiter, List<String> clients) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(clients.size());
        try {
            List<Future<Decision>> held = new ArrayList<>();
            for (String client : clients) {
                held.add(threads.submit(() -> limiter.tryAcquire(client)));
            }
            for (Future<Decision> f : held) {
                assertThat(f.get().source()).isEqualTo(Source.STORE);
            }
        } finally {
            threads.shutdownNow();
        }
    }
}
