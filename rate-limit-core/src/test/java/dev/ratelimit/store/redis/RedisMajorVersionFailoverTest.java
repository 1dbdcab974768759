package dev.ratelimit.store.redis;

import dev.ratelimit.Decision;
import dev.ratelimit.FailureMode;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.testing.RedisBinary;
import dev.ratelimit.testing.RedisServer;
import dev.ratelimit.testing.Resp;
import dev.ratelimit.testing.TcpProxy;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * A Redis major-version upgrade (6.2 to 7.0) or rollback (7.0 to 6.2) by failover behind one endpoint,
 * as managed services and Sentinel users upgrade: a replica of the other version is promoted, the
 * endpoint switched to it, the old master demoted. From a trial: decisions never met the failure mode,
 * but after the upgrade the store stayed on EVALSHA until the application restarted. Needs both
 * binaries (redis-server 7 on the PATH, the bundled 6.2); skipped, saying so, without them.
 */
class RedisMajorVersionFailoverTest {
    private static final Limit LIMIT = Limit.of("upgrade", Policy.fixedWindow(100, Duration.ofHours(1)));

    private final RecordingListener listener = new RecordingListener();
    private final ManualClock clock = new ManualClock(Instant.parse("2026-12-04T00:00:00Z"));

    private static RedisServer start(Path binary, String version) {
        assumeThat(binary).as("a redis-server for " + version).isNotNull();
        RedisServer server = RedisServer.start(binary);
        if (!server.version().startsWith(version)) {
            server.close();
            assumeThat(server.version()).startsWith(version);
        }
        server.call("CONFIG", "SET", "repl-diskless-sync-delay", "0");
        return server;
    }

    /** Decisions for one client, as "SOURCE/remaining". */
    private static List<String> decide(RateLimiter limiter, int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Decision d = limiter.tryAcquire("client");
            out.add(d.source() + "/" + d.remaining());
        }
        return out;
    }

    /** Runs {@code phases} with the store's log lines recorded; returns them. */
    private static List<String> logOf(Runnable phases) {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream stderr = System.err;
        System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
        try {
            phases.run();
        } finally {
            System.setErr(stderr);
        }
        return log.toString(StandardCharsets.UTF_8).lines().filter(l -> l.contains("Redis store")).toList();
    }

    private RedisStore store(TcpProxy endpoint) {
        return RedisStore.builder().url(endpoint.url()).failureMode(FailureMode.FAIL_CLOSED).clock(clock).listener(listener).build();
    }

    private static void failOver(RedisServer from, RedisServer to, TcpProxy endpoint) {
        to.call("REPLICAOF", "NO", "ONE");
        endpoint.switchTo(to.port());
        from.call("REPLICAOF", "127.0.0.1", Integer.toString(to.port()));
    }

    @Test
    void anUpgradeTo70ByFailoverKeepsTheCountsAndMovesTheStoreToFcall() {
        try (RedisServer old = start(RedisBinary.embedded(), "6.2"); RedisServer next = start(RedisBinary.fromPath(), "7.");
             TcpProxy endpoint = new TcpProxy(old.port())) {
            next.call("REPLICAOF", "127.0.0.1", Integer.toString(old.port()));
            Awaitility.await("7.0 replicates 6.2").atMost(Duration.ofSeconds(20))
                    .until(() -> "up".equals(Resp.info(next.port(), "replication", "master_link_status")));
            List<String> on62 = new ArrayList<>();
            List<String> on70 = new ArrayList<>();
            List<String> later = new ArrayList<>();
            List<String> log = logOf(() -> {
                try (RedisStore store = store(endpoint)) {
                    RateLimiter limiter = store.limiter(LIMIT);
                    on62.addAll(decide(limiter, 10));
                    assertThat(old.awaitReplicas(1, Duration.ofSeconds(10))).isEqualTo(1);
                    failOver(old, next, endpoint);
                    on70.addAll(decide(limiter, 10));
                    clock.advance(Duration.ofSeconds(61)); // within the window; long after the upgrade
                    later.addAll(decide(limiter, 5));
                }
            });
            assertThat(on62).last().isEqualTo("STORE/90");
            assertThat(on70).as("no failure mode; the replicated count carries over")
                    .containsExactly("STORE/89", "STORE/88", "STORE/87", "STORE/86", "STORE/85",
                            "STORE/84", "STORE/83", "STORE/82", "STORE/81", "STORE/80");
            assertThat(later).containsExactly("STORE/79", "STORE/78", "STORE/77", "STORE/76", "STORE/75");
            assertThat(listener.errors).isEmpty();
            assertThat(log).first().asString().contains("Redis Functions unavailable").contains("unknown command `FCALL`");
            // Before, the store stayed on EVALSHA on 7.0 until the application restarted (fcall=0).
            assertThat(next.calls("cmdstat_fcall")).as("FCALL on the new 7.0 master").isGreaterThanOrEqualTo(5);
            assertThat(next.call("FUNCTION", "LIST").toString()).as("the library loaded there").contains("ratelimit_");
            assertThat(log).anyMatch(line -> line.contains("Redis Functions available again; deciding with FCALL"));
        }
    }

    @Test
    void aRollbackTo62ByFailoverFallsBackToEvalshaAtOnceButStartsFromNothing() throws Exception {
        try (RedisServer old = start(RedisBinary.fromPath(), "7."); RedisServer prev = start(RedisBinary.embedded(), "6.2");
             TcpProxy endpoint = new TcpProxy(old.port())) {
            List<String> on70 = new ArrayList<>();
            List<String> on62 = new ArrayList<>();
            List<String> log = logOf(() -> {
                try (RedisStore store = store(endpoint)) {
                    RateLimiter limiter = store.limiter(LIMIT);
                    on70.addAll(decide(limiter, 10));
                    prev.call("REPLICAOF", "127.0.0.1", Integer.toString(old.port()));
                    Path redisLog = Path.of(System.getProperty("basedir", "."), "target", "redis", "node-" + prev.port(), "redis.log");
                    Awaitility.await("6.2 refuses the RDB of 7.0").atMost(Duration.ofSeconds(20))
                            .until(() -> Files.readString(redisLog).contains("Can't handle RDB format version 10"));
                    failOver(old, prev, endpoint);
                    on62.addAll(decide(limiter, 10));
                }
            });
            assertThat(on70).last().isEqualTo("STORE/90");
            assertThat(old.calls("cmdstat_fcall")).as("10, and the READONLY one after the switch").isEqualTo(11);
            // Redis 6.2 cannot replicate 7.0 (RDB format 10): the promoted 6.2 is empty, every count starts again.
            assertThat(on62).as("no failure mode, but the counts are lost").first().isEqualTo("STORE/99");
            assertThat(listener.errors).isEmpty();
            assertThat(prev.calls("cmdstat_evalsha")).isEqualTo(10);
            assertThat(log).singleElement().asString().contains("Redis Functions unavailable").contains("unknown command `FCALL`");
        }
    }
}
