package dev.ratelimit.store.redis;

import dev.ratelimit.Decision;
import dev.ratelimit.FailureMode;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import dev.ratelimit.testing.RedisServer;
import dev.ratelimit.testing.TcpProxy;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.providers.PooledConnectionProvider;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redis closes every connection at once ({@code CLIENT KILL}, a proxy's reload): a call fails on its
 * dead pooled connection and is sent again. A connection that another call was using when Redis closed
 * it comes back to the pool after the idle ones were dropped, and the call sent again can take it. That
 * call is sent once more, on a fresh connection, rather than follow the failure mode.
 */
class RedisBrokenConnectionRetryTest {
    private static final Limit LIMIT = Limit.of("retry", Policy.fixedWindow(5, Duration.ofMinutes(1)));

    /** Hands out {@link #stale} instead of a pooled connection at the {@code n}th borrow from now. */
    static final class StaleOnBorrow extends PooledConnectionProvider {
        volatile Connection stale;
        volatile int borrowsBeforeStale = -1;

        StaleOnBorrow(HostAndPort node, GenericObjectPoolConfig<Connection> pool) {
            super(node, DefaultJedisClientConfig.builder().resp2().build(), pool);
        }

        @Override
        public Connection getConnection() {
            return borrow() ? stale : super.getConnection();
        }

        @Override
        public Connection getConnection(CommandArguments args) {
            return borrow() ? stale : super.getConnection(args);
        }

        private synchronized boolean borrow() {
            if (borrowsBeforeStale < 0) {
                return false;
            }
            return borrowsBeforeStale-- == 0;
        }
    }

    private RedisServer redis;
    private final RecordingListener listener = new RecordingListener();
    private final List<Throwable> errors = listener.errors;
    private final List<String> health = listener.health;

    @BeforeEach
    void startRedis() {
        redis = RedisServer.start();
    }

    @AfterEach
    void stopRedis() {
        redis.close();
    }

    @ParameterizedTest(name = "pipelining {0}")
    @ValueSource(booleans = {true, false})
    void aCallSentAgainOnAConnectionThatCameBackDeadIsSentOnceMoreAndDecidedOnRedis(boolean pipelining) {
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        pool.setJmxEnabled(false);
        StaleOnBorrow provider = new StaleOnBorrow(new HostAndPort("127.0.0.1", redis.port()), pool);
        try (RedisClient client = RedisClient.builder().connectionProvider(provider).build();
             RedisStore store = RedisStore.builder().client(client).failureMode(FailureMode.FAIL_CLOSED)
                     .pipelining(pipelining).denialCache(false).listener(listener).build()) {
            RateLimiter limiter = store.limiter(LIMIT);
            assertThat(limiter.tryAcquire("client").source()).isEqualTo(Source.STORE);

            // Two pooled connections: one another call is using, one idle; Redis then closes both.
            Connection inUse = provider.getPool().getResource();
            Connection idle = provider.getPool().getResource();
            idle.close();
            redis.call("CLIENT", "KILL", "TYPE", "normal");
            // The decision's call takes the dead idle one and fails; its second send takes the one in use,
            // as if that call had returned it just after the idle ones were dropped.
            provider.stale = inUse;
            provider.borrowsBeforeStale = 1;

            Decision d = limiter.tryAcquire("client");

            assertThat(provider.borrowsBeforeStale).as("the dead connection in use was handed out").isLessThan(0);
            assertThat(d.source()).isEqualTo(Source.STORE);
            assertThat(d.remaining()).as("charged once: neither dead connection reached Redis").isEqualTo(3);
            assertThat(errors).isEmpty();
            assertThat(health).isEmpty();
        }
    }

    /**
     * The same race, unstaged: Redis closes every connection 30 times, a second apart on the store's
     * clock, while 8 threads decide. Before
     * the store's pool refused connections made before a break, about one kill in fifteen sent a
     * decision to the failure mode. Timeouts (a loaded machine) are not what this test is about.
     */
    @ParameterizedTest(name = "pipelining {0}")
    @ValueSource(booleans = {true, false})
    void closingEveryConnectionUnderLoadSendsNoDecisionToTheFailureMode(boolean pipelining) throws Exception {
        ManualClock clock = new ManualClock(Instant.parse("2026-12-03T00:00:00Z"));
        try (RedisStore store = RedisStore.builder().url(redis.url()).failureMode(FailureMode.FAIL_CLOSED).clock(clock)
                .pipelining(pipelining).denialCache(false).listener(listener).build();
             Deciders deciders = new Deciders(8, store.limiter(Limit.of("kill", Policy.fixedWindow(1_000_000_000, Duration.ofMinutes(1)))))) {
            for (int kill = 0; kill < 30; kill++) {
                deciders.awaitMore(200);
                clock.advance(Duration.ofSeconds(1)); // the store expires connections at most once a second
                redis.call("CLIENT", "KILL", "TYPE", "normal");
            }
        }

        assertThat(errors).filteredOn(CallFailure::brokeAnOpenConnection).isEmpty();
    }

    /**
     * An endpoint with no Redis behind it accepts each connection and closes it: the connection broke
     * while it was being set up, not while open. The call is sent once more, as after a refused
     * connection, not three times, and no connection is expired for it.
     */
    @Test
    void anEndpointThatAcceptsAndClosesIsNotTakenForABrokenOpenConnection() {
        try (TcpProxy nowhere = new TcpProxy(RedisServer.freePort());
             RedisStore store = RedisStore.builder().url(nowhere.url()).failureMode(FailureMode.FAIL_OPEN)
                     .circuitBreaker(1_000, Duration.ofSeconds(1)).pipelining(false).denialCache(false)
                     .listener(listener).build()) {
            RateLimiter limiter = store.limiter(LIMIT);
            limiter.tryAcquire("warm-up"); // creates the client
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> nowhere.accepted() == 2);

            for (int i = 0; i < 10; i++) {
                assertThat(limiter.tryAcquire("client").source()).isEqualTo(Source.FAIL_OPEN);
            }

            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> nowhere.accepted() >= 22);
            assertThat(nowhere.accepted()).as("two connections a decision").isEqualTo(22);
            assertThat(errors).last().satisfies(e -> assertThat(CallFailure.brokeAnOpenConnection(e)).isFalse());
        }
    }
}
