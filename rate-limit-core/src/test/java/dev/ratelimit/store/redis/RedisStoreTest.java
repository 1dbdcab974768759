package dev.ratelimit.store.redis;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import dev.ratelimit.StoreHealth;
import dev.ratelimit.Verdict;
import dev.ratelimit.Waiter;
import dev.ratelimit.testing.RedisServer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The Redis store on a real server, timed by Redis {@code TIME} as in production. */
class RedisStoreTest {
    private static final Duration LONG = Duration.ofDays(400);
    private static RedisServer redis;
    private static RedisStore store;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
        store = RedisStore.builder().url(redis.url()).readTimeout(Duration.ofSeconds(2)).build();
    }

    @AfterAll
    static void stopRedis() {
        store.close();
        redis.close();
    }

    @Test
    void everyAlgorithmAdmitsItsLimitThenRejectsWithAnHonestWait() {
        // Windows of 400 days: a window edge falling inside this test is not a worry.
        Policy[] policies = {
                Policy.tokenBucket(3, 1, LONG),
                Policy.fixedWindow(3, LONG),
                Policy.slidingWindowLog(3, LONG),
                Policy.slidingWindowCounter(3, LONG),
                Policy.gcra(1, LONG, 3)};
        long longMicros = LONG.toSeconds() * 1_000_000L;
        for (Policy policy : policies) {
            RateLimiter limiter = store.limiter(Limit.of("algo-" + policy.algorithm().replace('_', '-'), policy));
            String key = "client-" + policy.algorithm();
            for (int i = 2; i >= 0; i--) {
                Decision d = limiter.tryAcquire(key);
                assertThat(d.verdict()).as("%s", policy).isEqualTo(Verdict.ALLOWED);
                assertThat(d.source()).isEqualTo(Source.STORE);
                assertThat(d.remaining()).as("%s", policy).isEqualTo(i);
                assertThat(d.limit()).isEqualTo(3);
            }
            Decision rejected = limiter.tryAcquire(key);
            assertThat(rejected.verdict()).as("%s", policy).isEqualTo(Verdict.REJECTED);
            assertThat(rejected.policy()).isEqualTo(policy);
            assertThat(rejected.retryAfterMicros()).as("%s", policy).isPositive().isLessThanOrEqualTo(3 * longMicros);
            assertThat(rejected.resetAfterMicros()).as("%s", policy).isGreaterThanOrEqualTo(rejected.retryAfterMicros());
            assertThat(limiter.tryAcquire(key, 4).verdict()).isEqualTo(Verdict.COST_EXCEEDS_LIMIT);
        }
    }

    @Test
    void aCompositeLimitIsDecidedByItsTightestPolicyInOneCall() {
        Limit limit = Limit.of("composite", Policy.tokenBucket(10, 10, Duration.ofSeconds(1)),
                Policy.fixedWindow(2, LONG), Policy.slidingWindowLog(5, LONG));
        RateLimiter limiter = store.limiter(limit);
        Decision first = limiter.tryAcquire("composite-client");
        assertThat(first.allowed()).isTrue();
        assertThat(first.policy()).isEqualTo(Policy.fixedWindow(2, LONG));
        assertThat(first.remaining()).isEqualTo(1);
        assertThat(limiter.tryAcquire("composite-client").remaining()).isZero();
        Decision rejected = limiter.tryAcquire("composite-client");
        assertThat(rejected.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(rejected.policy()).isEqualTo(Policy.fixedWindow(2, LONG));
        // The rejection consumed nothing from the log: it still holds exactly the two admitted requests.
        String logKey = ScriptLimit.key("rl:", limit, ClientHash.sha256().of("composite-client"), 2);
        assertThat(redis.call("ZCARD", logKey)).isEqualTo(2L);
    }

    @Test
    void twoInstancesRacingOnOneKeyAdmitExactlyTheLimit() throws Exception {
        Limit limit = Limit.of("race", Policy.tokenBucket(100, 1, Duration.ofDays(1)),
                Policy.slidingWindowLog(150, Duration.ofDays(1)));
        try (RedisStore a = RedisStore.builder().url(redis.url()).readTimeout(Duration.ofSeconds(2)).build();
             RedisStore b = RedisStore.builder().url(redis.url()).readTimeout(Duration.ofSeconds(2)).build()) {
            RateLimiter[] instances = {a.limiter(limit), b.limiter(limit)};
            AtomicInteger allowed = new AtomicInteger();
            AtomicInteger otherThanStore = new AtomicInteger();
            CountDownLatch go = new CountDownLatch(1);
            ExecutorService threads = Executors.newFixedThreadPool(16);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 16; t++) {
                RateLimiter limiter = instances[t % 2];
                Callable<Void> racer = () -> {
                    go.await();
                    for (int i = 0; i < 25; i++) {
                        Decision d = limiter.tryAcquire("racing-client");
                        if (d.allowed()) {
                            allowed.incrementAndGet();
                        }
                        if (d.source() != Source.STORE && d.source() != Source.DENIAL_CACHE) {
                            otherThanStore.incrementAndGet();
                        }
                    }
                    return null;
                };
                done.add(threads.submit(racer));
            }
            go.countDown();
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
            threads.shutdown();
            assertThat(otherThanStore.get()).isZero();
            assertThat(allowed.get()).isEqualTo(100);
        }
    }

    @Test
    void aSlidingWindowLogDropsEntriesThatLeftTheWindowOnTheExactMicrosecond() {
        // An entry stamped t counts while now < t + W: at t + W it has left, and the set keeps only
        // the entries that count, at most the limit (the log's memory bound).
        ManualClock clock = new ManualClock(Instant.parse("2026-03-02T10:00:00Z"));
        try (RedisStore timed = RedisStore.builder().url(redis.url()).clock(clock).timeFromClock(true).denialCache(false).build()) {
            RateLimiter limiter = timed.limiter(Limit.of("log-edge", Policy.slidingWindowLog(5, Duration.ofSeconds(1))));
            assertThat(limiter.tryAcquire("client", 5).allowed()).isTrue();
            clock.advance(Duration.ofSeconds(1));
            assertThat(limiter.tryAcquire("client", 5).allowed()).isTrue();
            List<String> keys = scan("rl:log-edge:*");
            assertThat(keys).hasSize(1);
            assertThat((Long) redis.call("ZCARD", keys.get(0))).as("entries in the log").isEqualTo(5);
        }
    }

    @Test
    void aStateFreshAgainWithinAMillisecondStillGetsAWholeMillisecondOfTtl() {
        // The bucket is full again 500 us after the request: the TTL is rounded up to 1 ms, never
        // down to 0 (which would leave the state for less time than it matters, and which SET PX refuses).
        Policy[] policies = {Policy.tokenBucket(1, 1, Duration.ofNanos(500_000)), Policy.gcra(1, Duration.ofNanos(500_000), 1)};
        for (int i = 0; i < policies.length; i++) {
            String name = "sub-ms-" + i;
            Decision d = store.limiter(Limit.of(name, policies[i])).tryAcquire("client");
            assertThat(d.source()).as("%s", policies[i]).isEqualTo(Source.STORE);
            assertThat(d.verdict()).as("%s", policies[i]).isEqualTo(Verdict.ALLOWED);
            for (String key : scan("rl:" + name + ":*")) {
                assertThat((Long) redis.call("PTTL", key)).as("PTTL of %s", key).isBetween(-2L, 1L).isNotEqualTo(-1L);
            }
        }
    }

    @Test
    void everyKeyExpiresWhenForgettingItChangesNothingAndHidesTheClientKey() {
        String secret = "apikey:sk-live-9f8e7d6c5b4a";
        Policy[] policies = {
                Policy.tokenBucket(10, 1, Duration.ofSeconds(2)),
                Policy.fixedWindow(10, Duration.ofMinutes(1)),
                Policy.slidingWindowLog(10, Duration.ofSeconds(30)),
                Policy.slidingWindowCounter(10, Duration.ofSeconds(20)),
                Policy.gcra(1, Duration.ofSeconds(3), 10)};
        long[] maxTtlMillis = {2_000, 60_000, 30_000, 40_000, 3_000};
        for (int i = 0; i < policies.length; i++) {
            String name = "ttl-" + i;
            store.limiter(Limit.of(name, policies[i])).tryAcquire(secret);
            List<String> keys = scan("rl:" + name + ":*");
            assertThat(keys).as("keys of %s", policies[i]).hasSize(1);
            String key = keys.get(0);
            assertThat(key).doesNotContain("sk-live").doesNotContain("9f8e7d6c5b4a").contains("{" + ClientHash.sha256().of(secret) + "}");
            long ttl = (Long) redis.call("PTTL", key);
            assertThat(ttl).as("PTTL of %s (%s)", key, policies[i]).isPositive().isLessThanOrEqualTo(maxTtlMillis[i]);
        }
        for (String key : scan("*")) {
            // -1 is a key without a TTL; -2 one that expired since the scan (other tests leave keys of 1 ms).
            assertThat((Long) redis.call("PTTL", key)).as("PTTL of %s", key).isNotEqualTo(-1L);
            assertThat(key).doesNotContain("client-").doesNotContain("racing").doesNotContain("sk-live");
        }
    }

    @Test
    void withAClientKeySecretKeysHoldTheKeyedHashAndStoresWithTheSameSecretShareTheQuota() {
        Limit limit = Limit.of("keyed", Policy.fixedWindow(2, LONG));
        String ip = "ip:203.0.113.7";
        String secret = "0123456789abcdef-fleet-secret";
        try (RedisStore first = RedisStore.builder().url(redis.url()).clientKeySecret(secret).build();
             RedisStore second = RedisStore.builder().url(redis.url()).clientKeySecret(secret).build();
             RedisStore other = RedisStore.builder().url(redis.url()).clientKeySecret("a different secret!").build()) {
            assertThat(first.limiter(limit).tryAcquire(ip).remaining()).isEqualTo(1);
            assertThat(second.limiter(limit).tryAcquire(ip).remaining()).isZero();
            assertThat(second.limiter(limit).tryAcquire(ip).verdict()).isEqualTo(Verdict.REJECTED);
            // Another secret is another key: whoever lacks the secret cannot find this client's state.
            assertThat(other.limiter(limit).tryAcquire(ip).remaining()).isEqualTo(1);
            String keyed = ClientHash.hmacSha256(secret.getBytes(StandardCharsets.UTF_8)).of(ip);
            assertThat(scan("rl:keyed:*")).hasSize(2)
                    .anySatisfy(key -> assertThat(key).contains("{" + keyed + "}"))
                    .noneSatisfy(key -> assertThat(key).contains(ClientHash.sha256().of(ip)));
        }
    }

    @Test
    void theSlidingLogKeepsOneTimestampPerUnitOfCostUpToItsLimit() {
        RateLimiter limiter = store.limiter(Limit.of("log-units", Policy.slidingWindowLog(10, LONG)));
        assertThat(limiter.tryAcquire("weighted", 5).allowed()).isTrue();
        List<String> keys = scan("rl:log-units:*");
        assertThat(keys).hasSize(1);
        assertThat((Long) redis.call("ZCARD", keys.get(0))).as("one request of cost 5").isEqualTo(5);
        assertThat(limiter.tryAcquire("weighted", 5).allowed()).isTrue();
        assertThat(limiter.tryAcquire("weighted", 1).allowed()).isFalse();
        assertThat((Long) redis.call("ZCARD", keys.get(0))).as("never more than the limit").isEqualTo(10);
    }

    @Test
    void aRequestThatCanNeverPassWritesNothing() {
        RateLimiter limiter = store.limiter(Limit.of("never", Policy.gcra(1, Duration.ofSeconds(1), 2)));
        assertThat(limiter.tryAcquire("huge-cost", 3).verdict()).isEqualTo(Verdict.COST_EXCEEDS_LIMIT);
        assertThat(limiter.tryAcquire("huge-cost", Long.MAX_VALUE).verdict()).isEqualTo(Verdict.COST_EXCEEDS_LIMIT);
        assertThat(scan("rl:never:*")).isEmpty();
    }

    @Test
    void aCostBelowOneIsTheCallersMistake() {
        RateLimiter limiter = store.limiter(Limit.of("cost", Policy.fixedWindow(1, LONG)));
        assertThatThrownBy(() -> limiter.tryAcquire("k", 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("cost must be >= 1, was 0");
    }

    @Test
    void aClosedStoreAnswersByItsFailureModeAndClosesOnce() throws InterruptedException {
        List<String> heard = new CopyOnWriteArrayList<>();
        RedisStore closing = RedisStore.builder().url(redis.url()).failureMode(dev.ratelimit.FailureMode.FAIL_CLOSED)
                .readTimeout(Duration.ofSeconds(2)).listener(new RateLimitListener() {
                    @Override
                    public void onStoreCall(long micros, boolean ok) {
                        heard.add("call ok=" + ok);
                    }

                    @Override
                    public void onHealthChange(StoreHealth previous, StoreHealth current) {
                        heard.add(previous + "->" + current);
                    }
                }).build();
        RateLimiter limiter = closing.limiter(Limit.of("closing", Policy.fixedWindow(5, LONG)));
        assertThat(limiter.tryAcquire("k").source()).isEqualTo(Source.STORE);
        closing.close();
        closing.close();
        for (int i = 0; i < 10; i++) {
            Decision after = limiter.tryAcquire("k");
            assertThat(after.verdict()).isEqualTo(Verdict.STORE_UNAVAILABLE);
            assertThat(after.source()).isEqualTo(Source.FAIL_CLOSED);
            assertThat(after.retryAfter()).as("a closed store never decides again").isEmpty();
        }
        // So a Waiter returns at once rather than sleeping until its maxWait.
        ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
        Decision waited = Waiter.of(clock, clock::advance).tryAcquire(limiter, "k", Duration.ofSeconds(30));
        assertThat(waited.verdict()).isEqualTo(Verdict.STORE_UNAVAILABLE);
        assertThat(clock.nowMicros()).as("slept for").isEqualTo(Instant.parse("2026-01-01T00:00:00Z").toEpochMilli() * 1000);
        assertThat(closing.health()).as("a use after close is no outage: the breaker never opens").isEqualTo(StoreHealth.UP);
        assertThat(heard).as("no failed store calls, no health changes").containsExactly("call ok=true");
    }

    @Test
    void closingTheStoreWhileThreadsDecideIsNoOutage() throws Exception {
        // Calls under way when close() comes fail (the pool is closed, or a connection under them): in 6 of
        // 10 rounds they were counted as Redis failing, and health stayed DEGRADED for good. Five rounds.
        for (int round = 0; round < 5; round++) {
            List<String> heard = new CopyOnWriteArrayList<>();
            RedisStore closing = RedisStore.builder().url(redis.url()).keyPrefix("closing-" + round + ":")
                    .listener(new RateLimitListener() {
                        @Override
                        public void onStoreError(Throwable e) {
                            heard.add("error " + e);
                        }

                        @Override
                        public void onHealthChange(StoreHealth previous, StoreHealth current) {
                            heard.add(previous + "->" + current);
                        }
                    }).build();
            RateLimiter limiter = closing.limiter(Limit.of("closing", Policy.tokenBucket(1_000_000, 1_000_000, Duration.ofSeconds(1))));
            AtomicBoolean deciding = new AtomicBoolean(true);
            AtomicInteger decided = new AtomicInteger();
            ExecutorService threads = Executors.newFixedThreadPool(16);
            try {
                for (int t = 0; t < 16; t++) {
                    String client = "c" + t;
                    threads.submit(() -> {
                        while (deciding.get()) {
                            limiter.tryAcquire(client);
                            decided.incrementAndGet();
                        }
                    });
                }
                Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> decided.get() >= 200);
                closing.close();
                int atClose = decided.get();
                Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> decided.get() >= atClose + 200);
            } finally {
                deciding.set(false);
                threads.shutdown();
                assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
            }
            assertThat(heard).as("round %d: no store errors, no health changes", round).isEmpty();
            assertThat(closing.health()).as("round %d", round).isEqualTo(StoreHealth.UP);
        }
    }

    @Test
    void aClosedStoresLocalFallbackRefusalAboveItsShareIsReturnedAtOnceByAWaiter() throws InterruptedException {
        RedisStore closing = RedisStore.builder().url(redis.url()).fallbackShare(0.5).build(); // LOCAL_FALLBACK
        RateLimiter limiter = closing.limiter(Limit.of("closed-share", Policy.fixedWindow(10, LONG)));
        closing.close();
        Decision above = limiter.tryAcquire("k", 6); // above this instance's share of 5, within the limit of 10
        assertThat(above.verdict()).isEqualTo(Verdict.REJECTED);
        assertThat(above.retryAfter()).as("it would pass once Redis is asked again: never").isEmpty();
        ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
        Waiter.of(clock, clock::advance).tryAcquire(limiter, "k", 6, Duration.ofSeconds(30));
        assertThat(clock.nowMicros()).as("slept for").isEqualTo(Instant.parse("2026-01-01T00:00:00Z").toEpochMilli() * 1000);
    }

    @Test
    void closingAStoreLeavesAClientPassedInOpenForItsOwner() {
        try (RedisClient own = RedisClient.builder().hostAndPort(new HostAndPort("127.0.0.1", redis.port()))
                .clientConfig(DefaultJedisClientConfig.builder().timeoutMillis(2_000).build()).build()) {
            RedisStore borrowing = RedisStore.builder().client(own).failureMode(dev.ratelimit.FailureMode.FAIL_CLOSED).build();
            RateLimiter limiter = borrowing.limiter(Limit.of("borrowed", Policy.fixedWindow(5, LONG)));
            assertThat(limiter.tryAcquire("k").source()).isEqualTo(Source.STORE);
            borrowing.close();

            assertThat(limiter.tryAcquire("k").source()).as("the closed store").isEqualTo(Source.FAIL_CLOSED);
            assertThat(own.ping()).as("the owner's client").isEqualTo("PONG");
        }
    }

    @Test
    void aStoreOpensAtMostPoolSizeConnectionsToANodeHoweverManyCallersWait() throws Exception {
        try (RedisServer own = RedisServer.start();
             RedisStore small = RedisStore.builder().url(own.url()).pipelining(false).poolSize(3)
                     .readTimeout(Duration.ofSeconds(5)).build()) {
            RateLimiter limiter = small.limiter(Limit.of("pool", Policy.fixedWindow(100, LONG)));
            assertThat(limiter.tryAcquire("warm-up").source()).isEqualTo(Source.STORE); // one connection
            long before = connectionsReceived(own);
            own.call("CLIENT", "PAUSE", 300, "WRITE"); // holds the callers' calls: each wants a connection
            HeldCalls.decidedTogetherByRedis(limiter, IntStream.range(0, 8).mapToObj(i -> "caller-" + i).toList());
            // Beside the store's: one connection for the PAUSE, one for the INFO that counts.
            long opened = connectionsReceived(own) - before - 2;
            assertThat(opened).as("connections the store opened beside the warm-up's").isBetween(1L, 2L);
        }
    }

    @Test
    void noFreePooledConnectionDecidesByTheFailureModeWithoutOpeningTheBreakerOnAHealthyRedis() throws Exception {
        GenericObjectPoolConfig<Connection> onlyOne = new GenericObjectPoolConfig<>();
        onlyOne.setMaxTotal(1);
        onlyOne.setMaxWait(Duration.ofMillis(50));
        List<String> heard = new CopyOnWriteArrayList<>();
        try (RedisClient own = RedisClient.builder().hostAndPort(new HostAndPort("127.0.0.1", redis.port()))
                .clientConfig(DefaultJedisClientConfig.builder().timeoutMillis(2_000).build()).poolConfig(onlyOne).build();
             RedisStore store = RedisStore.builder().client(own).pipelining(false).failureMode(dev.ratelimit.FailureMode.FAIL_CLOSED)
                     .listener(RedisConnectionCheckTest.recording(heard)).build()) {
            RateLimiter limiter = store.limiter(Limit.of("pool-busy", Policy.fixedWindow(100, LONG)));
            try (Connection busy = own.getPool().getResource()) { // the pool's only connection, busy elsewhere
                for (int i = 0; i < 10; i++) {
                    assertThat(limiter.tryAcquire("k").source()).isEqualTo(Source.FAIL_CLOSED);
                }
                assertThat(store.health()).as("Redis answers; this client was short of connections").isEqualTo(StoreHealth.UP);
            }
            assertThat(heard).as("reported as errors, no health change").containsOnly("error").hasSize(10);
            Decision after = limiter.tryAcquire("k");
            assertThat(after.source()).as("no breaker was opened").isEqualTo(Source.STORE);
            assertThat(after.remaining()).isEqualTo(99);
        }
    }

    @Test
    void aHungRedisStillOpensTheBreakerWhileMostCallersFindNoFreeConnection() throws Exception {
        GenericObjectPoolConfig<Connection> two = new GenericObjectPoolConfig<>();
        two.setMaxTotal(2);
        two.setMaxWait(Duration.ofMillis(50));
        ExecutorService callers = Executors.newFixedThreadPool(16);
        AtomicBoolean stop = new AtomicBoolean();
        try (RedisServer own = RedisServer.start();
             RedisClient client = RedisClient.builder().hostAndPort(new HostAndPort("127.0.0.1", own.port()))
                     .clientConfig(DefaultJedisClientConfig.builder().timeoutMillis(300).resp2().build()).poolConfig(two).build();
             RedisStore store = RedisStore.builder().client(client).pipelining(false)
                     .failureMode(dev.ratelimit.FailureMode.FAIL_CLOSED).build()) {
            RateLimiter limiter = store.limiter(Limit.of("hung", Policy.fixedWindow(1000, LONG)));
            assertThat(limiter.tryAcquire("warm-up").source()).isEqualTo(Source.STORE);
            own.pause();
            try {
                for (int t = 0; t < 16; t++) {
                    String key = "caller-" + t;
                    callers.submit(() -> {
                        while (!stop.get()) {
                            limiter.tryAcquire(key);
                        }
                    });
                }
                // The calls holding the two connections time out and count, however many callers time out on the pool.
                Awaitility.await("the breaker open").atMost(Duration.ofSeconds(10))
                        .until(() -> store.health() == StoreHealth.CIRCUIT_OPEN);
            } finally {
                stop.set(true);
                callers.shutdown();
                own.resume();
            }
            assertThat(callers.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void closingTheStoreLeavesNoInterruptOnAThreadWaitingForAPooledConnection() throws Exception {
        ExecutorService callers = Executors.newFixedThreadPool(2);
        try (RedisServer own = RedisServer.start()) {
            RedisStore store = RedisStore.builder().url(own.url()).pipelining(false).poolSize(1)
                    .failureMode(dev.ratelimit.FailureMode.FAIL_CLOSED).readTimeout(Duration.ofSeconds(10)).build();
            RateLimiter limiter = store.limiter(Limit.of("closing-pool", Policy.fixedWindow(100, LONG)));
            assertThat(limiter.tryAcquire("warm-up").source()).isEqualTo(Source.STORE);
            own.clientPause(3_000); // holds the one connection's next call
            AtomicReference<Thread> holder = new AtomicReference<>();
            Future<Decision> holding = callers.submit(() -> {
                holder.set(Thread.currentThread());
                return limiter.tryAcquire("a");
            });
            // "a" first: had "b" taken the connection, "a" would be the one waiting for it.
            Awaitility.await("a call holding the one connection").atMost(Duration.ofSeconds(5))
                    .until(() -> holder.get() != null && Arrays.stream(holder.get().getStackTrace())
                            .anyMatch(f -> f.getClassName().endsWith("RedisInputStream")));
            AtomicReference<Thread> waiter = new AtomicReference<>();
            Future<Boolean> interruptedAfter = callers.submit(() -> {
                waiter.set(Thread.currentThread());
                limiter.tryAcquire("b"); // waits for the connection "a" holds
                return Thread.currentThread().isInterrupted();
            });
            Awaitility.await("a caller waiting for the pool").atMost(Duration.ofSeconds(5))
                    .until(() -> waiter.get() != null && waiter.get().getState() == Thread.State.TIMED_WAITING
                            && Arrays.stream(waiter.get().getStackTrace()).anyMatch(f -> f.getMethodName().equals("borrowObject")));
            store.close(); // commons-pool interrupts the threads waiting for a connection of the pool it closes
            assertThat(interruptedAfter.get(10, TimeUnit.SECONDS)).as("the waiting caller's interrupt status").isFalse();
            holding.get(10, TimeUnit.SECONDS);
        } finally {
            callers.shutdownNow();
        }
    }

    private static long connectionsReceived(RedisServer server) {
        return Long.parseLong(dev.ratelimit.testing.Resp.info(server.port(), "stats", "total_connections_received"));
    }

    private static List<String> scan(String pattern) {
        List<String> keys = new ArrayList<>();
        String cursor = "0";
        do {
            List<?> reply = (List<?>) redis.call("SCAN", cursor, "MATCH", pattern, "COUNT", 1000);
            cursor = (String) reply.get(0);
            for (Object key : (List<?>) reply.get(1)) {
                keys.add((String) key);
            }
        } while (!"0".equals(cursor));
        return keys;
    }
}
