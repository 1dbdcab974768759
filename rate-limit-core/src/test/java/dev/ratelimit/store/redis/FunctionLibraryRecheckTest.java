package dev.ratelimit.store.redis;

import dev.ratelimit.ManualClock;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.exceptions.JedisDataException;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** The library turned off by a server that cannot run it is tried again a minute later, whatever the clock does. */
class FunctionLibraryRecheckTest {
    private static final JedisDataException NO_FCALL = new JedisDataException("ERR unknown command `FCALL`, with args beginning with: ");
    private final ManualClock clock = new ManualClock(Instant.parse("2026-12-04T00:00:00Z"));
    private final FunctionLibrary library = new FunctionLibrary("test", clock);

    @Test
    void aLibraryTurnedOffIsTriedAgainAMinuteLaterAndOnAgainOnceAnFcallSucceeds() {
        assertThat(library.recover(null, "k", NO_FCALL, library.loads())).as("call again").isFalse();
        assertThat(library.available()).isFalse();
        clock.advance(Duration.ofSeconds(59));
        assertThat(library.available()).isFalse();
        clock.advance(Duration.ofSeconds(1));
        assertThat(library.available()).as("a minute on: FCALL again").isTrue();

        library.recover(null, "k", NO_FCALL, library.loads()); // still refused: another minute
        assertThat(library.available()).isFalse();
        clock.advance(Duration.ofSeconds(60));
        library.succeeded();
        clock.advance(Duration.ofSeconds(-30));
        assertThat(library.available()).as("on for good once an FCALL succeeded").isTrue();
    }

    @Test
    void aClockSteppedBackDoesNotHoldTheLibraryOffUntilItCatchesUp() {
        library.recover(null, "k", NO_FCALL, library.loads());
        clock.advance(Duration.ofHours(-1));
        assertThat(library.available()).isTrue();
    }
}
