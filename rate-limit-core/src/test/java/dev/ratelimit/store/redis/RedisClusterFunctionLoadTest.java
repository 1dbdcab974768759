package dev.ratelimit.store.redis;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import dev.ratelimit.testing.RedisCluster;
import dev.ratelimit.testing.RedisServer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On Cluster, Jedis sends FUNCTION LOAD to every master it knows, and fails the whole load if one of
 * them does not answer. A master that is down (until the cluster fails it over, or for good without a
 * replica) is not a server that cannot run the library: the masters that answered loaded it, and
 * decisions there go on by FCALL. A master importing a slot during a resharding is not reached by the
 * load: the calls redirected to it (ASK) are made as EVAL, without loading the library again on every
 * master for each of them.
 */
class RedisClusterFunctionLoadTest {
    private static final Limit LIMIT = Limit.of("function-load", Policy.fixedWindow(100, Duration.ofDays(400)));

    @Test
    void aDeadMasterDoesNotTurnTheLibraryOffForTheMastersThatLoadedIt() {
        try (RedisCluster cluster = RedisCluster.start(3, 0);
             RedisStore store = RedisStore.builder().url(cluster.url()).build()) {
            RedisServer dead = cluster.currentMasters().get(0);
            RedisServer flushed = cluster.currentMasters().get(1);
            String client = clientOn(cluster, flushed);
            RateLimiter limiter = store.limiter(LIMIT);
            assertThat(limiter.tryAcquire(client).remaining()).isEqualTo(99);

            dead.kill();
            flushed.call("FUNCTION", "FLUSH");
            flushed.call("CONFIG", "RESETSTAT");
            for (int used = 2; used <= 4; used++) {
                assertThat(limiter.tryAcquire(client).remaining()).as("decision %d", used).isEqualTo(100 - used);
            }

            assertThat(String.valueOf(flushed.call("FUNCTION", "LIST", "LIBRARYNAME", "ratelimit_*")))
                    .contains("ratelimit_decide_");
            assertThat(flushed.calls("cmdstat_evalsha")).as("EVALSHA calls on %s", flushed).isZero();
            assertThat(flushed.calls("cmdstat_fcall")).as("FCALLs on %s", flushed).isGreaterThanOrEqualTo(3);
        }
    }

    @Test
    void callsRedirectedToAnImportingMasterDoNotReloadTheLibraryOnEveryMasterEachTime() {
        ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
        try (RedisCluster cluster = RedisCluster.start(2, 0);
             RedisStore store = RedisStore.builder().url(cluster.url()).clock(clock).readTimeout(Duration.ofSeconds(1)).build()) {
            RedisServer source = cluster.currentMasters().get(0);
            RedisServer other = cluster.currentMasters().get(1);
            String client = clientOn(cluster, source);
            RateLimiter limiter = store.limiter(LIMIT);
            assertThat(limiter.tryAcquire(client).remaining()).isEqualTo(99);
            RedisServer added = cluster.addMaster();
            RedisCluster.SlotMigration migration = cluster.startMigration(cluster.slot(keyOf(client)), added);
            migration.moveKeys();
            source.call("CONFIG", "RESETSTAT");
            other.call("CONFIG", "RESETSTAT");

            for (int used = 2; used <= 21; used++) {
                Decision d = limiter.tryAcquire(client);
                assertThat(d.source()).as("decision %d", used).isEqualTo(Source.STORE);
                assertThat(d.remaining()).as("decision %d", used).isEqualTo(100 - used);
            }

            assertThat(added.calls("cmdstat_eval")).as("EVALs on the importing master").isEqualTo(20);
            // One load, when the library was first found missing; not one per decision on every master.
            assertThat(source.calls("cmdstat_function|load")).as("loads on the slot's owner").isEqualTo(1);
            assertThat(other.calls("cmdstat_function|load")).as("loads on the other master").isEqualTo(1);

            clock.advance(Duration.ofSeconds(1)); // loads are paused for a second after one that did not help
            migration.finish();
            assertThat(limiter.tryAcquire(client).remaining()).as("the slot moved").isEqualTo(78);
            assertThat(limiter.tryAcquire(client).remaining()).isEqualTo(77);
            assertThat(added.calls("cmdstat_eval")).as("EVALs on the new owner, once it got the library").isEqualTo(20);
        }
    }

    private static String keyOf(String client) {
        return ScriptLimit.key("rl:", LIMIT, ClientHash.sha256().of(client), 0);
    }

    /** A client id whose keys live on {@code master}. */
    private static String clientOn(RedisCluster cluster, RedisServer master) {
        for (int i = 0; ; i++) {
            String client = "client-" + i;
            if (cluster.masterOf(cluster.slot(keyOf(client))) == master) {
                return client;
            }
        }
    }
}
