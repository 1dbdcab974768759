package dev.ratelimit.store.redis;

import dev.ratelimit.FailureMode;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import dev.ratelimit.testing.RedisCluster;
import dev.ratelimit.testing.RedisServer;
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
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A Redis Cluster whose masters' ACL users were set up one by one, one of them without {@code +fcall}:
 * from a review, the store turned Redis Functions off there, back on at a success on the other master
 * a minute later, off again, for ever, two log lines a minute. An ACL's refusal now keeps EVALSHA.
 */
class RedisClusterFcallDeniedOnOneMasterTest {
    private static final Limit LIMIT = Limit.of("flip", Policy.fixedWindow(1000, Duration.ofDays(400)));

    @Test
    void oneMasterDenyingFcallTurnsRedisFunctionsOffOnceWithOneLineAndEveryDecisionStaysOnRedis() throws Exception {
        try (RedisCluster cluster = RedisCluster.start(2, 0)) {
            assumeTrue(cluster.nodes().get(0).hasFunctions());
            for (RedisServer node : cluster.nodes()) {
                for (String line : Files.readAllLines(Path.of("../README.md"))) {
                    if (line.startsWith("ACL SETUSER ratelimit ")) {
                        String c = line.contains("#") ? line.substring(0, line.indexOf('#')) : line;
                        node.call((Object[]) c.trim().split("\\s+"));
                    }
                }
            }
            RedisServer first = cluster.currentMasters().get(0);
            RedisServer second = cluster.currentMasters().get(1);
            second.call("ACL", "SETUSER", "ratelimit", "-fcall"); // one master's user set up without FCALL
            second.call("ACL", "LOG", "RESET");
            ManualClock clock = new ManualClock(Instant.parse("2026-12-04T00:00:00Z"));
            String url = cluster.url().replace("redis-cluster://", "redis-cluster://ratelimit:password@");
            List<Source> sources = new ArrayList<>();
            ByteArrayOutputStream log = new ByteArrayOutputStream();
            PrintStream stderr = System.err;
            System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
            try (RedisStore store = RedisStore.builder().url(url).failureMode(FailureMode.FAIL_CLOSED).clock(clock).build()) {
                RateLimiter limiter = store.limiter(LIMIT);
                String onFirst = clientOn(cluster, first), onSecond = clientOn(cluster, second);
                for (int minute = 0; minute < 10; minute++) {
                    sources.add(limiter.tryAcquire(onFirst).source());
                    sources.add(limiter.tryAcquire(onSecond).source());
                    clock.advance(Duration.ofSeconds(61));
                }
            } finally {
                System.setErr(stderr);
            }
            List<String> lines = log.toString(StandardCharsets.UTF_8).lines().filter(l -> l.contains("Redis Functions")).toList();
            assertThat(sources).containsOnly(Source.STORE);
            assertThat(lines).singleElement().asString().contains("Redis Functions unavailable").contains("FCALL is not tried again");
            assertThat(((List<?>) second.call("ACL", "LOG")).stream().filter(entry -> ((List<?>) entry).contains("fcall")))
                    .as("one refused FCALL in the ACL LOG, not one a minute").hasSize(1);
        }
    }

    private static String clientOn(RedisCluster cluster, RedisServer master) {
        for (int i = 0; ; i++) {
            String client = "client-" + i;
            if (cluster.masterOf(cluster.slot(ScriptLimit.key("rl:", LIMIT, ClientHash.sha256().of(client), 0))) == master) {
                return client;
            }
        }
    }
}
