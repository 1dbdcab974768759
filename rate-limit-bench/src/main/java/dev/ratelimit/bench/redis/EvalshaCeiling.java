package dev.ratelimit.bench.redis;

import redis.clients.jedis.RedisClient;

/**
 * The ceiling: one EVALSHA of {@code return 1} per decision on the same pooled client, i.e. one
 * round trip and a script call that does nothing. No rate limiter making one round trip of one
 * script call per decision can beat it; one that pipelines concurrent callers' calls (ours, unless
 * pipelining is off) shares a round trip among them and is not bound by it.
 */
final class EvalshaCeiling implements RedisContender {
    private final RedisClient client;
    private final String sha;

    EvalshaCeiling(int port) {
        this.client = Clients.pooled(port);
        this.sha = client.scriptLoad("return 1");
    }

    @Override
    public Object decide(String key) {
        return client.evalsha(sha, 0);
    }

    @Override
    public boolean allowed(Object result) {
        return Long.valueOf(1).equals(result);
    }

    @Override
    public void prepare(String key) {
        // nothing to track
    }

    @Override
    public void close() {
        client.close();
    }
}
