package dev.ratelimit.testing;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.Source;
import dev.ratelimit.store.redis.RedisStore;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The harness itself: the embedded fallback binary works, restart keeps the port, pause freezes. */
class RedisHarnessTest {

    @Test
    void theBinaryBundledInEmbeddedRedisRunsTheStoreWhenNoneIsOnThePath() {
        Path embedded = RedisBinary.embedded();
        assertThat(embedded).isNotEqualTo(RedisBinary.fromPath());
        try (RedisServer redis = RedisServer.start(embedded)) {
            assertThat(redis.binary()).isEqualTo(embedded);
            assertThat(redis.version()).startsWith("6.2.");
            try (RedisStore store = RedisStore.builder().url(redis.url()).readTimeout(Duration.ofSeconds(2)).build()) {
                Decision d = store.limiter(Limit.of("embedded", Policy.slidingWindowLog(2, Duration.ofMinutes(1))))
                        .tryAcquire("client");
                assertThat(d.source()).isEqualTo(Source.STORE);
                assertThat(d.remaining()).isEqualTo(1);
            }
        }
    }

    @Test
    void restartKeepsThePortAndLosesTheData() {
        try (RedisServer redis = RedisServer.start()) {
            int port = redis.port();
            redis.call("SET", "k", "v");
            redis.restart();
            assertThat(redis.port()).isEqualTo(port);
            assertThat(redis.call("GET", "k")).isNull();
            assertThat(redis.call("CONFIG", "GET", "save")).isEqualTo(List.of("save", ""));
            assertThat(redis.call("CONFIG", "GET", "appendonly")).isEqualTo(List.of("appendonly", "no"));
        }
    }

    @Test
    void aClusterNodeOnAPortUsedBeforeStartsAloneNotInTheEarlierNodesCluster() {
        int port;
        List<String> clusterMode = List.of("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf");
        try (RedisServer first = RedisServer.start(RedisBinary.find(), RedisServer.freePort(true), clusterMode);
             RedisServer other = RedisServer.start(RedisBinary.find(), RedisServer.freePort(true), clusterMode)) {
            port = first.port();
            first.call("CLUSTER", "MEET", "127.0.0.1", other.port());
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> knownNodes(first) == 2);
        }

        try (RedisServer again = RedisServer.start(RedisBinary.find(), port, clusterMode)) {
            assertThat(knownNodes(again)).isEqualTo(1);
            assertThat(again.call("CLUSTER", "SET-CONFIG-EPOCH", 1)).isEqualTo("OK");
        }
    }

    private static long knownNodes(RedisServer node) {
        return node.call("CLUSTER", "NODES").toString().lines().filter(l -> !l.isBlank()).count();
    }

    @Test
    void pauseFreezesTheProcessAndResumeThawsIt() {
        try (RedisServer redis = RedisServer.start()) {
            redis.pause();
            assertThat(Resp.ping(redis.port())).isFalse();
            redis.resume();
            assertThat(Resp.ping(redis.port())).isTrue();
        }
    }
}
