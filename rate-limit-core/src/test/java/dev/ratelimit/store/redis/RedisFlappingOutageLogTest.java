package dev.ratelimit.store.redis;

import dev.ratelimit.FailureMode;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import dev.ratelimit.StoreHealth;
import dev.ratelimit.testing.RedisServer;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Redis at its {@code maxmemory} under {@code noeviction} refuses some calls (OOM) and answers
 * others, so the breaker opens and closes again and again: the log says the first five openings of a
 * minute, not every one. Should Redis then stay down, that outage is logged all the same, though its
 * breaker never changes health again (each failed probe leaves it open): from a review, it was not
 * logged at all, an hour of FAIL_OPEN without a line.
 */
class RedisFlappingOutageLogTest {
    private static final Limit LIMIT = Limit.of("l", Policy.tokenBucket(1000, 1000, Duration.ofMinutes(1)));

    @Test
    void aBreakerFlappingIsLoggedFiveTimesAMinuteAndAnOutageThatThenLastsIsLogged() {
        ManualClock clock = new ManualClock(Instant.parse("2026-03-02T10:00:00Z"));
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream stderr = System.err;
        try (RedisServer redis = RedisServer.start();
             RedisStore store = RedisStore.builder().url(redis.url()).failureMode(FailureMode.FAIL_OPEN).clock(clock)
                     .circuitBreaker(3, Duration.ofSeconds(1)).build()) {
            RateLimiter limiter = store.limiter(LIMIT);
            assertThat(limiter.tryAcquire("warm-up").source()).isEqualTo(Source.STORE);
            // slf4j-simple writes to whatever System.err is at the time of each line.
            System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
            int n = 0;
            for (int cycle = 0; cycle < 8; cycle++) {
                redis.call("CONFIG", "SET", "maxmemory", "1"); // full: every call refused with OOM
                for (int i = 0; i < 3; i++) {
                    limiter.tryAcquire("c" + n++);
                }
                assertThat(store.health()).isEqualTo(StoreHealth.CIRCUIT_OPEN);
                redis.call("CONFIG", "SET", "maxmemory", "0");
                clock.advance(Duration.ofMillis(1100));
                assertThat(limiter.tryAcquire("c" + n++).source()).as("the probe").isEqualTo(Source.STORE);
                clock.advance(Duration.ofMillis(200));
            }
            assertThat(lines(log, "circuit breaker open")).as("openings logged while the breaker flaps").hasSize(5);

            redis.call("CONFIG", "SET", "maxmemory", "1");
            for (int i = 0; i < 3; i++) {
                limiter.tryAcquire("c" + n++);
            }
            redis.kill(); // and now Redis is gone for an hour
            for (int i = 0; i < 720; i++) {
                clock.advance(Duration.ofSeconds(5));
                assertThat(limiter.tryAcquire("c" + n++).source()).isEqualTo(Source.FAIL_OPEN);
            }
            assertThat(store.health()).isEqualTo(StoreHealth.CIRCUIT_OPEN);
        } finally {
            System.setErr(stderr);
        }
        List<String> openings = lines(log, "circuit breaker open");
        assertThat(openings).as("the outage that lasted, logged").hasSize(6);
        assertThat(openings.get(5)).contains("OOM").contains("; now: ").contains("Connection refused");
        assertThat(lines(log, "is still failing")).isEmpty();
    }

    private static List<String> lines(ByteArrayOutputStream log, String text) {
        return log.toString(StandardCharsets.UTF_8).lines().filter(l -> l.contains("RedisStore") && l.contains(text)).toList();
    }
}
