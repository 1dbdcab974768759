package dev.ratelimit.testing;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.Source;
import dev.ratelimit.store.redis.RedisStore;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;

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
            assertThat(redis.call("CONFIG", "GET", "save")).isEqualTo(java.util.List.of("save", ""));
            assertThat(redis.call("CONFIG", "GET", "appendonly")).isEqualTo(java.util.List.of("appendonly", "no"));
        }
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
