package dev.ratelimit.store.redis;

import dev.ratelimit.ManualClock;
import dev.ratelimit.testing.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;

import java.io.IOException;
import java.net.Socket;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A server at its {@code maxclients} refuses the connection a load needs ("ERR max number of clients
 * reached"): it is full for now, not a server that cannot run Redis Functions, and must not switch
 * the store to EVALSHA until the application restarts. The server is real; a raw socket holds its
 * only client slot.
 */
class FunctionLibraryMaxClientsTest {
    private final RedisServer server = RedisServer.start();
    private final FunctionLibrary library = new FunctionLibrary("test", new ManualClock(Instant.parse("2026-01-01T00:00:00Z")));

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    @SuppressWarnings("try") // the socket only holds the server's one client slot
    void aServerFullOfClientsFailsTheLoadAndLeavesTheLibraryOn() throws IOException {
        server.call("CONFIG", "SET", "maxclients", "1");
        try (Socket slot = new Socket("127.0.0.1", server.port());
             UnifiedJedis redis = RedisClient.builder().hostAndPort("127.0.0.1", server.port())
                     .clientConfig(DefaultJedisClientConfig.builder().timeoutMillis(1_000).build()).build()) {
            assertThatThrownBy(() -> library.recover(redis, "key", new JedisDataException("ERR Function not found"), library.loads()))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessageContaining("max number of clients reached");
            assertThat(library.available()).as("Functions still used once the server has room").isTrue();
        }
    }
}
