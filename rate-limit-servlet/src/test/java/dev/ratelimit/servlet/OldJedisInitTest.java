package dev.ratelimit.servlet;

import dev.ratelimit.testing.ChildJvm;
import jakarta.servlet.ServletException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A web app whose class path has Jedis 7.5.3 (older than the Redis store links with) and a Redis URL
 * in the {@code store} init-param: the filter's {@code init} fails, naming the param and saying why.
 */
class OldJedisInitTest {

    @Test
    void initWithAnOlderJedisFailsNamingTheStoreAndTheJedisVersion() throws Exception {
        String out = ChildJvm.withOldJedis(Child.class);

        assertThat(out).as(out).contains("refused: RateLimitFilter rateLimit: init-param store=\"redis://127.0.0.1:1\": "
                + "Jedis 7.5.3 is on the class path, but the Redis store needs Jedis 8.0.0 or later");
    }

    /** Initializes the filter in the child JVM and says what happened. */
    public static final class Child {
        public static void main(String[] args) {
            RateLimitFilter filter = new RateLimitFilter();
            try {
                filter.init(new MapFilterConfig("store", "redis://127.0.0.1:1"));
                System.out.println("initialized");
                filter.destroy();
            } catch (ServletException e) {
                System.out.println("refused: " + e.getMessage());
            }
        }
    }
}
