package dev.ratelimit.store.redis;

import dev.ratelimit.ManualClock;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.exceptions.JedisDataException;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The library turned off by a Redis without FCALL is tried again a minute later, whatever the clock
 * does; turned off by an ACL, never (each try would add to the server's ACL LOG); and only an FCALL
 * sent after it was turned off turns it on again (from a review: a reply of the old master did).
 */
class FunctionLibraryRecheckTest {
    private static final JedisDataException NO_FCALL = new JedisDataException("ERR unknown command `FCALL`, with args beginning with: ");
    private static final JedisDataException DENIED = new JedisDataException(
            "NOPERM User ratelimit has no permissions to run the 'fcall' command");
    private final ManualClock clock = new ManualClock(Instant.parse("2026-12-04T00:00:00Z"));
    private final FunctionLibrary library = new FunctionLibrary("test", clock);

    @Test
    void aLibraryTurnedOffByARedisWithoutFcallIsTriedAgainAMinuteLaterAndOnAgainOnceAnFcallSucceeds() {
        assertThat(library.recover(null, "k", NO_FCALL, library.loads())).as("call again").isFalse();
        assertThat(library.available()).isFalse();
        clock.advance(Duration.ofSeconds(59));
        assertThat(library.available()).isFalse();
        clock.advance(Duration.ofSeconds(1));
        assertThat(library.available()).as("a minute on: FCALL again").isTrue();

        library.recover(null, "k", NO_FCALL, library.loads()); // still refused: another minute
        assertThat(library.available()).isFalse();
        clock.advance(Duration.ofSeconds(60));
        library.succeeded(library.offs());
        clock.advance(Duration.ofSeconds(-30));
        assertThat(library.available()).as("on for good once an FCALL succeeded").isTrue();
    }

    @Test
    void anFcallSentBeforeTheLibraryWasTurnedOffDoesNotTurnItOnAgain() {
        long offsWhenSent = library.offs();
        library.recover(null, "k", NO_FCALL, library.loads()); // the new master refuses FCALL
        library.succeeded(offsWhenSent);                        // then the old master's reply arrives
        assertThat(library.available()).isFalse();
    }

    @Test
    void aLibraryAnAclTurnedOffStaysOff() {
        library.recover(null, "k", DENIED, library.loads());
        clock.advance(Duration.ofHours(1));
        assertThat(library.available()).isFalse();
    }

    @Test
    void aClockSteppedBackDoesNotHoldTheLibraryOffUntilItCatchesUp() {
        library.recover(null, "k", NO_FCALL, library.loads());
        clock.advance(Duration.ofHours(-1));
        assertThat(library.available()).isTrue();
    }
}
