package dev.ratelimit.store.redis;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Callers that find the client being created wait for that one creation and share how it ends; here
 * the creation is a factory the test holds, so that each way it can end is seen by a waiting caller.
 */
class ConnectionsTest {
    private final ExecutorService threads = Executors.newFixedThreadPool(2);
    private final List<Thread> callers = new CopyOnWriteArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    @Test
    void anErrorCreatingTheClientReachesTheCallerAsItself() {
        // A missing class is not a failing Redis: the limiter must see the Error, not a wrapper.
        Connections connections = new Connections(() -> {
            throw new NoClassDefFoundError("redis/clients/jedis/Missing");
        }, null, true);

        assertThatThrownBy(connections::client).isInstanceOf(NoClassDefFoundError.class);
    }

    @Test
    void aWaiterLearnsTheStoreClosedDuringTheCreationEvenWhenClosingTheNewClientFails() throws Exception {
        UnifiedJedis unclosable = new UnifiedJedis(new NoConnections(), RedisProtocol.RESP2) {
            @Override
            public void close() {
                throw new IllegalStateException("close failed");
            }
        };
        Connections connections = new Connections(() -> {
            awaitRelease();
            return new Connections.Created(unclosable, null);
        }, null, true);
        Future<UnifiedJedis> creator = call(connections);
        Future<UnifiedJedis> waiter = callOnceTheFirstWaits(connections);

        connections.close();
        release.countDown();

        for (Future<UnifiedJedis> caller : List.of(creator, waiter)) {
            assertThatThrownBy(() -> caller.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .hasRootCauseMessage("the Redis store is closed");
        }
    }

    @Test
    void aWaiterInterruptedMeanwhileGivesUpWhenTheCreatorsInterruptEndsTheCreation() throws Exception {
        AtomicInteger creations = new AtomicInteger();
        Connections connections = new Connections(() -> {
            creations.incrementAndGet();
            awaitRelease();
            throw new IllegalStateException("released: not expected here");
        }, null, true);
        Future<UnifiedJedis> creator = call(connections);
        Future<UnifiedJedis> waiter = callOnceTheFirstWaits(connections);

        callers.get(1).interrupt(); // its task was cancelled: it keeps waiting (the wait ignores interrupts)...
        callers.get(0).interrupt(); // ...until the creation ends by the creator's own cancellation

        for (Future<UnifiedJedis> caller : List.of(creator, waiter)) {
            assertThatThrownBy(() -> caller.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(JedisConnectionException.class).hasRootCauseInstanceOf(InterruptedException.class);
        }
        assertThat(creations).as("the cancelled waiter created nothing").hasValue(1);
    }

    /** Waits for the test, as a connect to a seed node would; an interrupt ends it as Jedis' pool reports one. */
    private void awaitRelease() {
        try {
            release.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            throw new JedisConnectionException("interrupted", e);
        }
    }

    private Future<UnifiedJedis> call(Connections connections) {
        return threads.submit(() -> {
            callers.add(Thread.currentThread());
            return connections.client();
        });
    }

    /** A second caller, once the first is in the factory; returns when the second waits for that creation. */
    private Future<UnifiedJedis> callOnceTheFirstWaits(Connections connections) {
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> callers.size() == 1
                && callers.get(0).getState() == Thread.State.TIMED_WAITING);
        Future<UnifiedJedis> second = call(connections);
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> callers.size() == 2
                && callers.get(1).getState() == Thread.State.WAITING);
        return second;
    }

    @Test
    void droppingConnectionsOfARedisClientOnAProviderOfItsOwnDoesNothingAndThrowsNothing() {
        // RedisClient.getPool() casts its provider to Jedis' pooled one: a provider of the user's own fails it.
        redis.clients.jedis.providers.ConnectionProvider own = new redis.clients.jedis.providers.ConnectionProvider() {
            @Override
            public redis.clients.jedis.Connection getConnection() {
                throw new JedisConnectionException("no connection here");
            }

            @Override
            public redis.clients.jedis.Connection getConnection(redis.clients.jedis.CommandArguments args) {
                throw new JedisConnectionException("no connection here");
            }

            @Override
            public void close() {
            }
        };
        try (redis.clients.jedis.RedisClient client = redis.clients.jedis.RedisClient.builder().connectionProvider(own).build()) {
            Connections connections = Connections.wrap(client);

            connections.dropIdleConnections(new JedisConnectionException("Unexpected end of stream."), 0);
        }
    }
}
