package dev.ratelimit.store.redis;

import dev.ratelimit.Decision;
import dev.ratelimit.FailureMode;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import dev.ratelimit.testing.RedisServer;
import dev.ratelimit.testing.Resp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * ACL users as production sets them up: exactly the permissions the README lists (and nothing
 * more) decide on Redis, in the URL's database; users denied FCALL or FUNCTION LOAD decide with
 * EVALSHA; a refused key is not taken for a refused FCALL. The start-up check fails where the user may
 * not use the prefix's keys or run the decision code.
 */
class RedisAclTest {
    /** The README's minimal ACL ("ACL for the store"), with {@code +select} for a database other than 0. */
    private static final List<String> README_ACL = List.of("on", ">s3cret", "resetkeys", "~rl:*", "resetchannels", "-@all",
            "+fcall", "+function|load", "+evalsha", "+eval",
            "+time", "+get", "+set", "+del", "+pexpire", "+zadd", "+zcard", "+zcount", "+zrange", "+zremrangebyscore",
            "+select");
    /** Every algorithm, so every command the scripts call is needed. */
    private static final Limit ALL = Limit.of("acl", Policy.fixedWindow(5, Duration.ofDays(1)),
            Policy.tokenBucket(6, 1, Duration.ofHours(1)), Policy.slidingWindowLog(7, Duration.ofHours(1)),
            Policy.slidingWindowCounter(8, Duration.ofHours(1)), Policy.gcra(1, Duration.ofHours(1), 9));

    /** What a failed start-up check adds when Redis refused a key. */
    private static final String KEYS_HINT = "(the user's key patterns must allow reading and writing ~rl:*)";

    private static RedisServer redis;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
        assumeTrue(redis.hasFunctions(), "Redis Functions need Redis 7; this redis-server is " + redis.version());
    }

    @AfterAll
    static void stop() {
        redis.close();
    }

    @BeforeEach
    void empty() {
        redis.call("FLUSHALL");
        redis.call("FUNCTION", "FLUSH");
        redis.call("SCRIPT", "FLUSH");
        redis.call("CONFIG", "RESETSTAT");
        redis.call("ACL", "LOG", "RESET");
    }

    @Test
    void aUserWithExactlyTheDocumentedPermissionsDecidesByFunctionsInTheUrlsDatabase() {
        setUser("limiter", README_ACL);
        try (RedisStore store = store("limiter", 3)) {
            store.checkConnection(); // the start-up check needs no more than the decisions
            RateLimiter limiter = store.limiter(ALL);
            assertStore(limiter, 4, 3);
            redis.call("FUNCTION", "FLUSH"); // a restart without persistence: the user loads the library again
            assertStore(limiter, 2);
        }
        assertThat(redis.calls("cmdstat_fcall")).isGreaterThanOrEqualTo(3);
        assertThat(redis.calls("cmdstat_evalsha")).isZero();
        assertThat(Resp.info(redis.port(), "keyspace", "db0")).as("database 0").isNull();
        assertThat(Resp.info(redis.port(), "keyspace", "db3")).as("database 3, from the URL").startsWith("keys=5,");
        assertThat(deniedByAcl()).as("ACL LOG: only the optional CLIENT SETNAME and the check's INFO are refused")
                .allMatch(object -> object.equals("client|setname") || object.equals("info"));
    }

    @Test
    void aUserDeniedFunctionsDecidesWithScriptsEvenUnderConcurrentCalls() throws Exception {
        List<String> noFunctions = new ArrayList<>(README_ACL);
        noFunctions.removeAll(List.of("+fcall", "+function|load"));
        setUser("scripts", noFunctions);
        try (RedisStore store = store("scripts", 3)) {
            RateLimiter limiter = store.limiter(Limit.of("acl-burst", Policy.fixedWindow(1000, Duration.ofDays(1))));
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                List<Future<Decision>> burst = new ArrayList<>();
                for (int i = 0; i < 32; i++) {
                    burst.add(pool.submit(() -> limiter.tryAcquire("client")));
                }
                for (Future<Decision> d : burst) {
                    assertThat(d.get().source()).isEqualTo(Source.STORE);
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(limiter.tryAcquire("client").remaining()).isEqualTo(1000 - 33);
            redis.call("SCRIPT", "FLUSH"); // NOSCRIPT: the user loads the script again
            assertStore(store.limiter(ALL), 4);
        }
        assertThat(redis.calls("cmdstat_fcall")).isZero();
        assertThat(redis.calls("cmdstat_evalsha")).isGreaterThanOrEqualTo(34);
    }

    @Test
    void aUserAllowedFcallButNotFunctionLoadDecidesWithScripts() {
        List<String> noLoad = new ArrayList<>(README_ACL);
        noLoad.remove("+function|load");
        setUser("noload", noLoad);
        try (RedisStore store = store("noload", 0)) {
            assertStore(store.limiter(ALL), 4, 3, 2);
        }
        assertThat(redis.calls("cmdstat_evalsha")).isGreaterThanOrEqualTo(3);
    }

    @Test
    void aRefusedKeyIsNotARefusedFcall() {
        try (RedisStore store = storeWithKeyPattern("wrongkeys", "~other:*")) {
            assertThatThrownBy(store::checkConnection).as("the start-up check uses a key as decisions do")
                    .hasMessageContaining("NOPERM").hasMessageEndingWith(KEYS_HINT);
            RateLimiter limiter = store.limiter(ALL);
            assertThat(limiter.tryAcquire("client").source()).as("keys outside the ACL").isEqualTo(Source.FAIL_CLOSED);
            setUser("wrongkeys", List.of("~rl:*")); // the operator fixes the ACL
            assertStore(limiter, 4);
        }
        assertThat(redis.calls("cmdstat_fcall")).as("still deciding by FCALL once the keys are allowed").isGreaterThanOrEqualTo(1);
        assertThat(redis.calls("cmdstat_evalsha")).isZero();
    }

    @Test
    void aUserAllowedOnlyToReadThePrefixsKeysFailsTheStartUpCheckWithTheHint() {
        try (RedisStore store = storeWithKeyPattern("readonly", "%R~rl:*")) {
            assertThatThrownBy(store::checkConnection).as("a decision's keys are declared for reading and writing")
                    .hasMessageContaining("NOPERM").hasMessageEndingWith(KEYS_HINT);
            assertThat(store.limiter(ALL).tryAcquire("client").source()).isEqualTo(Source.FAIL_CLOSED);
        }
    }

    @Test
    void aUserAllowedNeitherFunctionsNorScriptsFailsTheStartUpCheckAndAWriteOnlyCommandShowsAtTheFirstDecision() {
        List<String> noCode = new ArrayList<>(README_ACL);
        noCode.removeAll(List.of("+fcall", "+function|load", "+evalsha", "+eval"));
        setUser("nocode", noCode);
        try (RedisStore store = store("nocode", 0)) {
            assertThatThrownBy(store::checkConnection).hasMessageContaining("NOPERM");
        }
        List<String> noSet = new ArrayList<>(README_ACL);
        noSet.remove("+set");
        setUser("noset", noSet);
        try (RedisStore store = store("noset", 0)) {
            store.checkConnection(); // a request that can never pass writes nothing
            assertThat(store.limiter(ALL).tryAcquire("client").source()).isEqualTo(Source.FAIL_CLOSED);
        }
        assertThat(redis.call("DBSIZE")).as("the checks wrote nothing").isEqualTo(0L);
    }

    /** A store logged in as {@code user}, who has the README's rights with {@code keyPattern} in place of {@code ~rl:*}. */
    private static RedisStore storeWithKeyPattern(String user, String keyPattern) {
        List<String> rules = new ArrayList<>(README_ACL);
        rules.set(rules.indexOf("~rl:*"), keyPattern);
        setUser(user, rules);
        return store(user, 0);
    }

    private static RedisStore store(String user, int db) {
        return RedisStore.builder().url("redis://" + user + ":s3cret@127.0.0.1:" + redis.port() + (db == 0 ? "" : "/" + db))
                .failureMode(FailureMode.FAIL_CLOSED).denialCache(false)
                .connectTimeout(Duration.ofSeconds(2)).readTimeout(Duration.ofSeconds(2)).build();
    }

    private static void setUser(String user, List<String> rules) {
        List<Object> command = new ArrayList<>(List.of("ACL", "SETUSER", user));
        command.addAll(rules);
        redis.call(command.toArray());
    }

    /** The objects (commands, keys) the ACL LOG shows refused. */
    private static List<String> deniedByAcl() {
        List<String> objects = new ArrayList<>();
        for (Object entry : (List<?>) redis.call("ACL", "LOG")) {
            List<?> fields = (List<?>) entry;
            objects.add(String.valueOf(fields.get(fields.indexOf("object") + 1)));
        }
        return objects;
    }

    private static void assertStore(RateLimiter limiter, long... remaining) {
        for (long expected : remaining) {
            Decision d = limiter.tryAcquire("client");
            assertThat(d.source()).isEqualTo(Source.STORE);
            assertThat(d.remaining()).isEqualTo(expected);
        }
    }
}
