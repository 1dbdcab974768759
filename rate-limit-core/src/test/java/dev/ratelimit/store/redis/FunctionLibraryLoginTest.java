package dev.ratelimit.store.redis;

import dev.ratelimit.ManualClock;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisBroadcastException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.providers.PooledConnectionProvider;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A node that refuses the store's login (a master added without the ACL user, a password changed on
 * one node) cannot run anything for the store, the library included; that is not a server that
 * cannot run Redis Functions, and must not switch the whole store to EVALSHA for good. The client is
 * a Jedis whose load answers as such a cluster or node would (it never connects).
 */
class FunctionLibraryLoginTest {
    private final FunctionLibrary library = new FunctionLibrary("test", new ManualClock(Instant.parse("2026-01-01T00:00:00Z")));

    @Test
    void aMasterRefusingTheLoginDuringTheLoadLeavesTheLibraryOnForTheMastersThatLoadedIt() {
        JedisBroadcastException broadcast = new JedisBroadcastException();
        broadcast.addReply(new HostAndPort("127.0.0.1", 7000), "ratelimit_library");
        broadcast.addReply(new HostAndPort("127.0.0.1", 7001),
                new JedisDataException("WRONGPASS invalid username-password pair or user is disabled."));

        try (UnifiedJedis redis = answering(broadcast)) {
            boolean callAgain = library.recover(redis, "key", new JedisDataException("ERR Function not found"), library.loads());

            assertThat(callAgain).as("loaded where the login worked: call again").isTrue();
            assertThat(library.available()).isTrue();
        }
    }

    @Test
    void aNodeRefusingTheLoginFailsTheCallAndLeavesTheLibraryOn() {
        try (UnifiedJedis redis = answering(new JedisDataException("NOAUTH Authentication required."))) {
            assertThatThrownBy(() -> library.recover(redis, "key", new JedisDataException("ERR Function not found"), library.loads()))
                    .hasMessageStartingWith("NOAUTH");
            assertThat(library.available()).isTrue();
        }
    }

    /** A client whose every command fails with {@code reply}. */
    private static UnifiedJedis answering(RuntimeException reply) {
        return new UnifiedJedis(new PooledConnectionProvider(new HostAndPort("127.0.0.1", 1)), RedisProtocol.RESP2) {
            @Override
            public Object executeCommand(CommandArguments args) {
                throw reply;
            }
        };
    }
}
