package dev.ratelimit.store.redis;

import dev.ratelimit.testing.ChildJvm;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A JVM with Jedis 7.5.3 in place of the Jedis 8 the store is compiled against: building a store fails
 * at once, saying why, instead of every later call failing with NoSuchMethodError.
 */
class OldJedisTest {

    @Test
    void aStoreOnAnOlderJedisFailsToBuildSayingWhy() throws Exception {
        String out = ChildJvm.withOldJedis(Child.class);

        assertThat(out).as(out).contains("refused: Jedis 7.5.3 is on the class path, but the Redis store needs Jedis 8.0.0 or later");
    }

    /** Builds a store in the child JVM and says what happened. */
    public static final class Child {
        public static void main(String[] args) {
            try (RedisStore store = RedisStore.builder().url("redis://127.0.0.1:1").build()) {
                System.out.println("built " + store);
            } catch (IllegalStateException e) {
                System.out.println("refused: " + e.getMessage());
            }
        }
    }
}
