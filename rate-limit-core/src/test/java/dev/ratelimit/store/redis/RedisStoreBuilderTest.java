package dev.ratelimit.store.redis;

import dev.ratelimit.Clock;
import dev.ratelimit.FailureMode;
import dev.ratelimit.InvalidConfigurationException;
import dev.ratelimit.StoreHealth;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.SslOptions;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RedisStoreBuilderTest {

    @Test
    void aStoreNeedsAUrlOrAClient() {
        assertThatThrownBy(() -> RedisStore.builder().build())
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("url: must be set (or pass a client), was null");
    }

    @Test
    void aFallbackShareUnderAnotherFailureModeFailsTheBuildInsteadOfDoingNothing() {
        for (FailureMode mode : new FailureMode[] {FailureMode.FAIL_OPEN, FailureMode.FAIL_CLOSED}) {
            assertThatThrownBy(() -> RedisStore.builder().url("redis://127.0.0.1:1").failureMode(mode).fallbackShare(0.5).build())
                    .isInstanceOf(InvalidConfigurationException.class)
                    .hasMessage("fallbackShare: applies only to failureMode LOCAL_FALLBACK, but failureMode is " + mode + "; was 0.5");
        }
        try (RedisStore store = RedisStore.builder().url("redis://127.0.0.1:1").fallbackShare(0.5).build()) {
            assertThat(store).as("LOCAL_FALLBACK is the default").isNotNull();
        }
    }

    @Test
    void tlsOptionsWithAUrlThatIsNotTlsFailTheBuildInsteadOfConnectingInPlainText() {
        // A private CA's SslOptions beside a redis:// URL: the connections (and the AUTH password) would
        // go unencrypted, while the code reads as if TLS were set up.
        for (String url : new String[] {"redis://:pw@cache:6379", "redis-cluster://h1:7000", "redis-sentinel://s1/mymaster"}) {
            assertThatThrownBy(() -> RedisStore.builder().url(url).sslOptions(SslOptions.defaults()).build())
                    .isInstanceOf(InvalidConfigurationException.class)
                    .hasMessageStartingWith("sslOptions: apply only to a TLS URL (rediss://, rediss-cluster://), but url is \""
                            + RedisUrlMask.mask(url) + "\"")
                    .hasMessageNotContaining("pw@");
        }
        for (String url : new String[] {"rediss://cache:6379", "rediss-cluster://h1:7000"}) {
            try (RedisStore store = RedisStore.builder().url(url).sslOptions(SslOptions.defaults()).build()) {
                assertThat(store).isNotNull();
            }
        }
    }

    @Test
    void eachBadValueIsNamedWithItsField() {
        RedisStore.Builder b = RedisStore.builder();
        assertThatThrownBy(() -> b.fallbackShare(0)).hasMessage("fallbackShare: must be in (0, 1], was 0.0");
        assertThatThrownBy(() -> b.fallbackShare(1.5)).hasMessage("fallbackShare: must be in (0, 1], was 1.5");
        assertThatThrownBy(() -> b.fallbackShare(Double.NaN)).hasMessage("fallbackShare: must be in (0, 1], was NaN");
        assertThatThrownBy(() -> b.connectTimeout(Duration.ZERO)).hasMessage("connectTimeout: must be between 1 ms and 60 s, was PT0S");
        assertThatThrownBy(() -> b.readTimeout(Duration.ofMinutes(2))).hasMessage("readTimeout: must be between 1 ms and 60 s, was PT2M");
        assertThatThrownBy(() -> b.readTimeout(null)).hasMessage("readTimeout: must be between 1 ms and 60 s, was null");
        assertThatThrownBy(() -> b.readTimeout(Duration.ofNanos(1_999_000)))
                .hasMessage("readTimeout: must be whole milliseconds (Jedis waits in ms), was PT0.001999S");
        assertThat(b.connectTimeout(Duration.ofMillis(1_500))).isSameAs(b);
        assertThatThrownBy(() -> b.readTimeout(Duration.ofDays(999_999_999_999L)))
                .hasMessage("readTimeout: must be between 1 ms and 60 s, was PT23999999999976H");
        assertThatThrownBy(() -> b.connectTimeout(Duration.ofDays(-999_999_999_999L)))
                .hasMessage("connectTimeout: must be between 1 ms and 60 s, was PT-23999999999976H");
        assertThatThrownBy(() -> b.connectTimeout(Duration.ofNanos(999_999))).hasMessage("connectTimeout: must be between 1 ms and 60 s, was PT0.000999999S");
        assertThatThrownBy(() -> b.circuitBreaker(0, Duration.ofSeconds(1)))
                .hasMessage("circuitBreaker.consecutiveFailures: must be >= 1, was 0");
        assertThatThrownBy(() -> b.circuitBreaker(3, Duration.ofMillis(-1)))
                .hasMessage("circuitBreaker.openFor: must be between 1 ms and PT1H, was PT-0.001S");
        // Under a microsecond the breaker would keep open for 0 µs: a probe on every call to a hung Redis.
        assertThatThrownBy(() -> b.circuitBreaker(3, Duration.ofNanos(999)))
                .hasMessage("circuitBreaker.openFor: must be between 1 ms and PT1H, was PT0.000000999S");
        assertThatThrownBy(() -> b.circuitBreaker(3, Duration.ofNanos(1_500_000)))
                .hasMessage("circuitBreaker.openFor: must be whole milliseconds, was PT0.0015S");
        assertThat(b.circuitBreaker(3, Duration.ofMillis(1))).isSameAs(b);
        assertThat(b.circuitBreaker(3, Duration.ofHours(1))).isSameAs(b);
        assertThatThrownBy(() -> b.keyPrefix("rl:{x}:")).hasMessageStartingWith("keyPrefix: must be 1 to 64 printable")
                .hasMessageEndingWith("was \"rl:{x}:\"");
        assertThatThrownBy(() -> b.keyPrefix("a b")).hasMessageEndingWith("was \"a b\"");
        // No prefix would leave our keys indistinguishable from the application's own in a shared database.
        assertThatThrownBy(() -> b.keyPrefix("")).hasMessage("keyPrefix: must be 1 to 64 printable ASCII characters"
                + " without spaces or braces (braces would break Redis Cluster hash tags), ending with ':'"
                + " (so that no prefix and limit name spell another's), was \"\"");
        // "rl:shop-" + "login" would be "rl:" + "shop-login": another deployment's key.
        assertThatThrownBy(() -> b.keyPrefix("rl:shop-")).hasMessageEndingWith("ending with ':' (so that no prefix and"
                + " limit name spell another's), was \"rl:shop-\"");
        assertThat(b.keyPrefix(":")).isSameAs(b);
        assertThatThrownBy(() -> b.clientKeySecret("hunter2")).hasMessage("clientKeySecret: must be at least 16 characters, was 7 characters");
        assertThatThrownBy(() -> b.clientKeySecret(null)).hasMessage("clientKeySecret: must be at least 16 characters, was null");
        assertThatThrownBy(() -> b.clientKeySecret("0123456789abcdef\n")).hasMessage("clientKeySecret: must not begin or end with "
                + "white space (a newline read from a file?): instances given it trimmed would hash client ids differently");
        assertThatThrownBy(() -> b.clientKeySecret(" 0123456789abcdef")).hasMessageStartingWith("clientKeySecret: must not begin");
        assertThatThrownBy(() -> b.poolSize(0)).hasMessage("poolSize: must be in 1..1024, was 0");
        assertThatThrownBy(() -> b.failureMode(null)).hasMessage("failureMode: must not be null");
        assertThatThrownBy(() -> b.listener(null)).hasMessageStartingWith("listener: must not be null");
        assertThatThrownBy(() -> b.clock(null)).hasMessage("clock: must not be null");
        assertThatThrownBy(() -> b.url("redis://u:pw@host:port")).isInstanceOf(InvalidConfigurationException.class)
                .hasMessageNotContaining("pw@");
    }

    @Test
    void theEdgesOfEachRangeAreAcceptedAndOneBeyondIsRefused() {
        RedisStore.Builder b = RedisStore.builder();
        assertThat(b.poolSize(1)).isSameAs(b);
        assertThat(b.poolSize(1024)).isSameAs(b);
        assertThatThrownBy(() -> b.poolSize(1025)).hasMessage("poolSize: must be in 1..1024, was 1025");
        assertThat(b.readTimeout(Duration.ofMillis(1))).isSameAs(b);
        assertThat(b.readTimeout(Duration.ofSeconds(60))).isSameAs(b);
        assertThatThrownBy(() -> b.readTimeout(Duration.ofMillis(60_001))).hasMessage("readTimeout: must be between 1 ms and 60 s, was PT1M0.001S");
        assertThat(b.fallbackShare(1.0)).isSameAs(b);
        assertThat(b.circuitBreaker(1, Duration.ofSeconds(1))).isSameAs(b);
        assertThatThrownBy(() -> b.circuitBreaker(3, Duration.ofHours(1).plusMillis(1)))
                .hasMessage("circuitBreaker.openFor: must be between 1 ms and PT1H, was PT1H0.001S");
        assertThatThrownBy(() -> b.circuitBreaker(3, null)).hasMessage("circuitBreaker.openFor: must be between 1 ms and PT1H, was null");
        assertThat(b.clientKeySecret("0123456789abcdef")).as("16 characters").isSameAs(b);
        String longest = "p".repeat(63) + ":";
        assertThat(b.keyPrefix(longest)).isSameAs(b);
        assertThatThrownBy(() -> b.keyPrefix(longest + "p")).hasMessageEndingWith("was \"" + longest + "p\"");
        assertThatThrownBy(() -> b.keyPrefix(null)).hasMessageEndingWith(", was null");
        assertThatThrownBy(() -> b.client(null)).hasMessage("client: must not be null");
        assertThatThrownBy(() -> b.sslOptions(null)).hasMessage("sslOptions: must not be null");
    }

    @Test
    void aStoreTakesEitherAUrlOrAClientNotBoth() {
        try (RedisClient client = RedisClient.builder().hostAndPort(new HostAndPort("127.0.0.1", 1)).build()) {
            assertThatThrownBy(() -> RedisStore.builder().url("redis://u:pw@cache:6379").client(client).build())
                    .isInstanceOf(InvalidConfigurationException.class)
                    .hasMessage("client: set either url or client, not both; url was \"redis://***@cache:6379\"")
                    .hasMessageNotContaining("pw@");
            try (RedisStore store = RedisStore.builder().client(client).build()) {
                assertThat(store.toString()).startsWith("RedisStore[(client RedisClient), failureMode=LOCAL_FALLBACK");
            }
        }
    }

    @Test
    void aClientPassedInRefusesTheConnectionOptionsItWouldIgnore() {
        try (RedisClient client = RedisClient.builder().hostAndPort(new HostAndPort("127.0.0.1", 1)).build()) {
            assertThatThrownBy(() -> RedisStore.builder().client(client).readTimeout(Duration.ofMillis(50)).build())
                    .isInstanceOf(InvalidConfigurationException.class)
                    .hasMessage("readTimeout: applies only to a store made from a url; a client passed in keeps its own settings");
            assertThatThrownBy(() -> RedisStore.builder().connectTimeout(Duration.ofMillis(50)).client(client).build())
                    .hasMessageStartingWith("connectTimeout: ");
            assertThatThrownBy(() -> RedisStore.builder().client(client).poolSize(4).build()).hasMessageStartingWith("poolSize: ");
            assertThatThrownBy(() -> RedisStore.builder().client(client).sslOptions(SslOptions.defaults()).build())
                    .hasMessageStartingWith("sslOptions: ");
        }
    }

    @Test
    void aPasswordFileIsReadAtTheBuildAndRefusedWithAUrlThatHoldsAPasswordOrWithAClient(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("missing");
        assertThatThrownBy(() -> RedisStore.builder().url("redis://u@127.0.0.1:1").passwordFile(missing).build())
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("passwordFile: cannot be read (NoSuchFileException), was " + missing);
        Path empty = Files.writeString(dir.resolve("empty"), "\nhunter2");
        assertThatThrownBy(() -> RedisStore.builder().url("redis://127.0.0.1:1").passwordFile(empty).build())
                .hasMessage("passwordFile: must hold the password on its first line, but that line is empty; was " + empty);
        Path file = Files.writeString(dir.resolve("pw"), "hunter2\n");
        assertThatThrownBy(() -> RedisStore.builder().url("redis://u:other@127.0.0.1:1").passwordFile(file).build())
                .hasMessage("passwordFile: is set, but the url holds a password too: leave it out of the url (user@host for an ACL"
                        + " user, no credentials for the default user); was " + file);
        try (RedisClient client = RedisClient.builder().hostAndPort(new HostAndPort("127.0.0.1", 1)).build()) {
            assertThatThrownBy(() -> RedisStore.builder().client(client).passwordFile(file).build()).hasMessageStartingWith("passwordFile: ");
        }
        assertThatThrownBy(() -> RedisStore.builder().passwordFile(null)).hasMessage("passwordFile: must not be null");
        try (RedisStore store = RedisStore.builder().url("redis://ratelimit@127.0.0.1:1").passwordFile(file).build()) {
            assertThat(store.toString()).startsWith("RedisStore[redis://***@127.0.0.1:1,").doesNotContain("hunter2");
        }
    }

    @Test
    void aUrlNamingAUserWithoutAPasswordNeedsAPasswordFile() {
        // Never echoed: a password written without its colon (another client's URL form) would read as a user.
        assertThatThrownBy(() -> RedisStore.builder().url("redis://hunter2@127.0.0.1:1").build())
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("url: names a user without a password: write user:password@ (:password@ for the default user),"
                        + " or set passwordFile to read it from a file, was \"redis://***@127.0.0.1:1\"");
    }

    @Test
    void aStoreBuildsWithoutReachingRedisAndStartsUp() {
        try (RedisStore store = RedisStore.builder().url("redis://127.0.0.1:1").failureMode(FailureMode.FAIL_OPEN)
                .keyPrefix("shop:").clock(Clock.system()).build()) {
            assertThat(store.health()).isEqualTo(StoreHealth.UP);
            assertThat(store.toString()).isEqualTo("RedisStore[redis://127.0.0.1:1 with key prefix shop:, failureMode=FAIL_OPEN, health=UP]");
        }
    }
}
