package dev.ratelimit.store.redis;

import dev.ratelimit.ManualClock;
import dev.ratelimit.testing.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.exceptions.JedisDataException;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The library's batch function ({@code lua/batch.lua}) against a real Redis 7: each decision of a
 * batch gets the reply it would have got in its own call, a decision that fails fails alone, and the
 * decisions that read Redis' clock read it once.
 */
class BatchFunctionTest {
    private static final long NOW = 1_767_225_600_000_000L; // 2026-01-01, µs
    private static final long MINUTE = 60_000_000L;
    private final FunctionLibrary library = new FunctionLibrary("test", new ManualClock(Instant.parse("2026-01-01T00:00:00Z")));
    private RedisServer redis;
    private RedisClient client;

    @BeforeEach
    void loadTheLibrary() {
        redis = RedisServer.start();
        assumeTrue(redis.hasFunctions(), "Redis Functions need Redis 7; this redis-server is " + redis.version());
        client = RedisClient.create(redis.url());
        redis.call("FUNCTION", "LOAD", "REPLACE", library.source());
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        redis.close();
    }

    @Test
    void eachDecisionOfABatchGetsTheReplyItWouldHaveGotInItsOwnCall() {
        // Every algorithm, a composite, and a client deciding twice in the batch (its second decision
        // sees the first's charge), each at a fixed time: once one call each, once all in one batch.
        List<Decision> decisions = List.of(
                new Decision(List.of("tb"), args(NOW, 1, tokenBucket(3))),
                new Decision(List.of("fw"), args(NOW, 2, fixedWindow(2))),
                new Decision(List.of("swl"), args(NOW, 1, policy(3, 2, MINUTE, 0))),
                new Decision(List.of("swc"), args(NOW, 1, policy(4, 5, MINUTE, 0))),
                new Decision(List.of("gcra"), args(NOW, 1, policy(5, 2, 1000, 1))),
                new Decision(List.of("{c}a", "{c}b"), args(NOW, 1, fixedWindow(5), tokenBucket(1))),
                new Decision(List.of("tb"), args(NOW + 10, 3, tokenBucket(3))),
                new Decision(List.of("fw"), args(NOW + 10, 1, fixedWindow(2))));

        List<Object> alone = new ArrayList<>();
        for (Decision d : decisions) {
            alone.add(client.fcall(library.function(), keys("alone:", d.keys), d.args));
        }
        List<Object> batched = batch("batched:", decisions);

        assertThat(batched).isEqualTo(alone);
        // tb: 2 of 3 tokens left after the first; 3 more need one more token, a second less 10 µs away
        assertThat(alone.get(6)).as("the second decision of tb sees the first's charge").isEqualTo(List.of(1L, 0L, 2L, 999_990L, 999_990L));
    }

    @Test
    void aDecisionThatFailsFailsAloneAndTheOthersAreDecidedAndCharged() {
        List<Object> replies = batch("", List.of(
                new Decision(List.of("first"), args(NOW, 1, fixedWindow(5))),
                new Decision(List.of("unknown"), args(NOW, 1, policy(9, 1, 1, 1))),
                new Decision(List.of("broken"), args(NOW, 1, List.of("2", "five", "60000000", "0"))),
                new Decision(List.of("last"), args(NOW, 1, fixedWindow(5)))));

        assertThat(replies.get(0)).isEqualTo(List.of(0L, 0L, 4L, MINUTE, 0L));
        assertThat(replies.get(1)).isInstanceOf(JedisDataException.class)
                .extracting(e -> ((Exception) e).getMessage()).isEqualTo("unknown policy type 9");
        assertThat(replies.get(2)).isInstanceOf(JedisDataException.class);
        assertThat(replies.get(3)).isEqualTo(List.of(0L, 0L, 4L, MINUTE, 0L));
        assertThat(redis.call("EXISTS", "first")).isEqualTo(1L);
        assertThat(redis.call("EXISTS", "last")).isEqualTo(1L);
    }

    @Test
    void decisionsThatAskForRedisTimeAreDecidedAtOneInstant() {
        // Two decisions on one sliding-window log: each admitted unit is stamped with its decision's
        // time. Read once for the batch, both stamps are one; read per decision, they would differ.
        List<String> log = args("time", 1, policy(3, 5, MINUTE, 0));
        batch("", List.of(new Decision(List.of("log"), log), new Decision(List.of("other"), log), new Decision(List.of("log"), log)));

        List<?> stamped = (List<?>) redis.call("ZRANGE", "log", "0", "-1", "WITHSCORES");
        assertThat(stamped).hasSize(4);
        assertThat(stamped.get(1)).isEqualTo(stamped.get(3));
    }

    private List<Object> batch(String prefix, List<Decision> decisions) {
        List<String> keys = new ArrayList<>();
        List<String> args = new ArrayList<>();
        for (Decision d : decisions) {
            keys.addAll(keys(prefix, d.keys));
            args.add(Integer.toString(d.keys.size()));
            args.add(Integer.toString(d.args.size()));
            args.addAll(d.args);
        }
        Object reply = client.fcall(library.batchFunction(), keys, args);
        assertThat(reply).isInstanceOf(List.class);
        assertThat((List<?>) reply).hasSize(decisions.size());
        return new ArrayList<>((List<?>) reply);
    }

    private static List<String> keys(String prefix, List<String> keys) {
        return keys.stream().map(k -> prefix + k).toList();
    }

    /** ARGV of one decision: now (or "time"), cost, no TTL slack, then the policies. */
    @SafeVarargs
    private static List<String> args(Object now, long cost, List<String>... policies) {
        List<String> args = new ArrayList<>(List.of(String.valueOf(now), Long.toString(cost), "0"));
        for (List<String> p : policies) {
            args.addAll(p);
        }
        return args;
    }

    private static List<String> policy(long type, long p1, long p2, long p3) {
        return List.of(Long.toString(type), Long.toString(p1), Long.toString(p2), Long.toString(p3));
    }

    /** A token bucket of {@code capacity} refilled a token a second (units of 1,000,000 per token). */
    private static List<String> tokenBucket(long capacity) {
        return policy(1, capacity, 1_000_000, 1);
    }

    private static List<String> fixedWindow(long limit) {
        return policy(2, limit, MINUTE, 0);
    }

    private record Decision(List<String> keys, List<String> args) {
    }
}
