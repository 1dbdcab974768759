package dev.ratelimit.store.redis;

import org.junit.jupiter.api.Test;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.args.Rawable;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RoutedCommandTest {

    @Test
    void goesToTheRoutingKeysSlotWithoutSendingTheKey() {
        RoutedCommand load = new RoutedCommand("rl:{abc}:1", Protocol.Command.FUNCTION, "LOAD", "REPLACE", "#!lua name=x");

        assertThat(load.getKeyHashSlots()).containsExactly(JedisClusterCRC16.getSlot("abc"));
        assertThat(words(load)).containsExactly("FUNCTION", "LOAD", "REPLACE", "#!lua name=x");
    }

    @Test
    void sendsACommandWithoutArgumentsAsItIs() {
        assertThat(words(new RoutedCommand("k", Protocol.Command.TIME))).containsExactly("TIME");
    }

    private static List<String> words(RoutedCommand command) {
        List<String> out = new ArrayList<>();
        for (Rawable word : command) {
            out.add(new String(word.getRaw(), StandardCharsets.UTF_8));
        }
        return out;
    }
}
