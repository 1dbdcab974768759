package dev.ratelimit.store.redis;

import dev.ratelimit.FailureMode;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import dev.ratelimit.StoreHealth;
import dev.ratelimit.testing.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.DefaultRedisCredentials;
import redis.clients.jedis.RedisClient;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rotating the Redis password without a restart, as a trial of an operator's rotation found it must
 * be done: give the ACL user the new password beside the old, switch the instances to it, remove the
 * old. Redis keeps a connection logged in after its password is removed, so a store fails only when
 * it opens a new connection (a restart of Redis, {@code CLIENT KILL}, a read timeout replacing one);
 * {@code CLIENT KILL USER} forces that here. With {@code passwordFile} the store reads the password at
 * each login, so replacing the file is the switch; a client of your own does the same with Jedis'
 * credentials provider.
 */
class RedisPasswordRotationTest {
    private static final Limit LIMIT = Limit.of("rotation", Policy.fixedWindow(1000, Duration.ofDays(1)));

    @TempDir
    Path dir;

    @Test
    void aStoreReadingItsPasswordFromAFileGoesOnDecidingOnRedisThroughARotation() throws Exception {
        try (RedisServer redis = RedisServer.start()) {
            redis.call("ACL", "SETUSER", "ratelimit", "on", ">old", "~rl:*", "+@all");
            Path secret = write(dir.resolve("redis-password"), "old\n");
            RecordingListener listener = new RecordingListener();
            try (RedisStore store = RedisStore.builder().url("redis://ratelimit@127.0.0.1:" + redis.port()).passwordFile(secret)
                    .failureMode(FailureMode.FAIL_CLOSED).listener(listener).build()) {
                store.checkConnection();
                RateLimiter limiter = store.limiter(LIMIT);
                assertThat(limiter.tryAcquire("client").source()).isEqualTo(Source.STORE);

                rotate(redis, secret);

                assertThat(limiter.tryAcquire("client").source()).as("on a new connection, with the new password").isEqualTo(Source.STORE);
                assertThat(limiter.tryAcquire("client").remaining()).isEqualTo(997);
                assertThat(listener.errors).isEmpty();
                assertThat(store.health()).isEqualTo(StoreHealth.UP);

                // A file deleted, or caught half-written: the last password read stays in use.
                Files.delete(secret);
                redis.call("CLIENT", "KILL", "USER", "ratelimit");
                assertThat(limiter.tryAcquire("client").source()).isEqualTo(Source.STORE);
                write(secret, "");
                redis.call("CLIENT", "KILL", "USER", "ratelimit");
                assertThat(limiter.tryAcquire("client").source()).isEqualTo(Source.STORE);
                assertThat(listener.errors).isEmpty();
            }
        }
    }

    @Test
    void aStoreWithTheUrlsPasswordFollowsItsFailureModeAfterTheSameRotation() throws Exception {
        // The control: Redis refuses a new connection's login with the old password (WRONGPASS).
        try (RedisServer redis = RedisServer.start()) {
            redis.call("ACL", "SETUSER", "ratelimit", "on", ">old", "~rl:*", "+@all");
            try (RedisStore store = RedisStore.builder().url("redis://ratelimit:old@127.0.0.1:" + redis.port())
                    .failureMode(FailureMode.FAIL_CLOSED).build()) {
                RateLimiter limiter = store.limiter(LIMIT);
                assertThat(limiter.tryAcquire("client").source()).isEqualTo(Source.STORE);
                rotate(redis, dir.resolve("unused"));
                assertThat(limiter.tryAcquire("client").source()).isEqualTo(Source.FAIL_CLOSED);
            }
        }
    }

    @Test
    void theDefaultUsersPasswordIsReadFromAFileToo() {
        try (RedisServer redis = RedisServer.start()) {
            redis.call("CONFIG", "SET", "requirepass", "s3cret-default");
            try (RedisStore store = RedisStore.builder().url("redis://127.0.0.1:" + redis.port())
                    .passwordFile(write(dir.resolve("pw"), "s3cret-default\r\nignored second line"))
                    .failureMode(FailureMode.FAIL_CLOSED).build()) {
                store.checkConnection();
                assertThat(store.limiter(LIMIT).tryAcquire("client").source()).isEqualTo(Source.STORE);
            }
        }
    }

    @Test
    void aClientOfYourOwnWithACredentialsProviderStaysPipelinedThroughARotation() throws Exception {
        try (RedisServer redis = RedisServer.start()) {
            redis.call("ACL", "SETUSER", "ratelimit", "on", ">old", "~rl:*", "+@all");
            Path secret = write(dir.resolve("redis-password"), "old");
            DefaultJedisClientConfig config = DefaultJedisClientConfig.builder().resp2()
                    .credentialsProvider(() -> new DefaultRedisCredentials("ratelimit", read(secret))).build();
            try (RedisClient client = RedisClient.builder().hostAndPort("127.0.0.1", redis.port()).clientConfig(config).build();
                 RedisStore store = RedisStore.builder().client(client).failureMode(FailureMode.FAIL_CLOSED).build()) {
                RateLimiter limiter = store.limiter(LIMIT);
                assertThat(limiter.tryAcquire("client").source()).isEqualTo(Source.STORE);
                rotate(redis, secret);
                assertThat(limiter.tryAcquire("client").source()).isEqualTo(Source.STORE);
            }
        }
    }

    /** Adds the new password, writes it to {@code secret}, removes the old one and makes every connection log in again. */
    private static void rotate(RedisServer redis, Path secret) {
        redis.call("ACL", "SETUSER", "ratelimit", ">new");
        write(secret, "new\n");
        redis.call("ACL", "SETUSER", "ratelimit", "<old");
        assertThat((Long) redis.call("CLIENT", "KILL", "USER", "ratelimit")).as("connections killed").isPositive();
    }

    private static Path write(Path file, String content) {
        try {
            return Files.writeString(file, content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
