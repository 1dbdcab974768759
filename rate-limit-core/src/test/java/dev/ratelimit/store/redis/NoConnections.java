package dev.ratelimit.store.redis;

import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.providers.ConnectionProvider;

/** For fake clients that answer their commands themselves: every connection asked of it is refused. */
final class NoConnections implements ConnectionProvider {
    @Override
    public Connection getConnection() {
        throw new JedisConnectionException("no connections in this fake");
    }

    @Override
    public Connection getConnection(CommandArguments args) {
        throw new JedisConnectionException("no connections in this fake");
    }

    @Override
    public void close() {
    }
}
