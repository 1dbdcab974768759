package dev.ratelimit.docs;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Waiter;
import dev.ratelimit.store.memory.MemoryStore;
import dev.ratelimit.testing.ReadmeText;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The README's waiting example, run here on the system clock (12 calls of one customer: the last two wait about a second). */
class ReadmeWaiterExampleTest {
    record Order(String customerId) {
    }

    /** The partner API of the example: records what was sent. */
    static final class Partner {
        final List<Order> sent = new ArrayList<>();

        void send(Order order) {
            sent.add(order);
        }
    }

    @Test
    void theReadmeWaiterExampleSendsEveryOrder() throws InterruptedException {
        List<Order> orders = new ArrayList<>(Collections.nCopies(12, new Order("c1")));
        orders.addAll(Collections.nCopies(3, new Order("c2")));
        Partner partner = new Partner();
        // README:begin
        // A nightly export sends each customer's orders to a partner API that allows 10 calls a second
        // per customer; the export waits for quota rather than failing, up to 30 s per call.
        MemoryStore store = MemoryStore.builder().build();
        RateLimiter partnerApi = store.limiter(Limit.of("partner-api", Policy.slidingWindowLog(10, Duration.ofSeconds(1))));
        Waiter waiter = Waiter.system();
        for (Order order : orders) {
            Decision d = waiter.tryAcquire(partnerApi, "customer:" + order.customerId(), Duration.ofSeconds(30));
            if (!d.allowed()) {   // its wait would end after 30 s, or it can never pass (on a Redis store failing closed: or Redis is down)
                throw new IllegalStateException("no partner quota for " + order.customerId() + ": " + d.verdict());
            }
            partner.send(order);
        }
        // README:end
        assertThat(partner.sent).isEqualTo(orders);
    }

    @Test
    void theReadmeShowsExactlyThisCode() throws IOException {
        ReadmeText.assertShows("src/test/java/dev/ratelimit/docs/ReadmeWaiterExampleTest.java");
    }
}
