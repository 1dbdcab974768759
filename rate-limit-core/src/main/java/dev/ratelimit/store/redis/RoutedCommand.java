package dev.ratelimit.store.redis;

import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.commands.ProtocolCommand;

/**
 * A command sent to the node that owns a key's slot without that key among its arguments ({@code TIME},
 * {@code FUNCTION LOAD}): what Jedis' {@code sendCommand(sampleKey, ...)}, deprecated since Jedis 7.4,
 * builds. Outside a Cluster the key changes nothing.
 */
final class RoutedCommand extends CommandArguments {

    RoutedCommand(String routingKey, ProtocolCommand command, String... arguments) {
        super(command);
        addObjects((Object[]) arguments);
        addHashSlotKeys(routingKey);
    }
}
