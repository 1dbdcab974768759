package dev.ratelimit;

import dev.ratelimit.store.memory.MemoryStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A line exists while someone is in it, whether its members are served, give up or are interrupted. */
class WaitLinesTest {
    private final WaitLines lines = new WaitLines();
    private final RateLimiter limiter = MemoryStore.builder().build().limiter(Limit.of("partner", TokenBucket.perSecond(1, 1)));
    private final ExecutorService other = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() {
        other.shutdownNow();
    }

    @Test
    void aLineIsGoneOnceItsLastMemberLeavesItWhateverTheWay() throws Exception {
        WaitLines.Turn turn = lines.await(limiter, "customer-42", 0);
        assertThat(turn).isNotNull();
        assertThat(lines.await(limiter, "customer-7", 0)).as("another key: another line").isNotNull();
        assertThat(lines.size()).isEqualTo(2);

        assertThat(other.submit(() -> lines.await(limiter, "customer-42", 0)).get()).as("behind the first, giving up at once").isNull();
        assertThatThrownBy(() -> other.submit(() -> {
            Thread.currentThread().interrupt();
            return lines.await(limiter, "customer-42", 1_000_000);
        }).get()).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(InterruptedException.class);
        assertThat(lines.size()).as("those who gave up left").isEqualTo(2);

        turn.close();
        assertThat(lines.size()).isEqualTo(1);
        WaitLines.Turn next = other.submit(() -> lines.await(limiter, "customer-42", 0)).get();
        assertThat(next).as("the turn was given back").isNotNull();
        other.submit(next::close).get();
        assertThat(lines.size()).as("only customer-7's line is left").isEqualTo(1);
    }
}
