package dev.ratelimit.store.redis;

import dev.ratelimit.testing.ChildJvm;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A JVM with Jedis 7.5.3 in place of the Jedis 8 the store is compiled against, or without Jedis or its
 * pool: building a store fails at once, saying why, instead of every later call failing with
 * NoSuchMethodError or a bare NoClassDefFoundError (an Error, which {@code catch (Exception e)} misses).
 */
class JedisOnTheClassPathTest {

    @Test
    void aStoreOnAnOlderJedisFailsToBuildSayingWhy() throws Exception {
        String out = ChildJvm.withOldJedis(Child.class);

        assertThat(out).as(out).contains("refused: Jedis 7.5.3 is on the class path, but the Redis store needs Jedis 8.0.0 or later");
    }

    @Test
    void aStoreWithoutJedisFailsToBuildNamingTheDependency() throws Exception {
        String out = ChildJvm.without("jedis-\\d.*", Child.class);

        assertThat(out).as(out).contains("refused: the Redis store needs redis.clients:jedis (8.0.0 or later) on the class path");
    }

    @Test
    void aStoreWithoutCommonsPoolFailsToBuildNamingTheDependency() throws Exception {
        String out = ChildJvm.without("commons-pool2-.*", Child.class);

        assertThat(out).as(out).contains("refused: the Redis store needs org.apache.commons:commons-pool2");
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
