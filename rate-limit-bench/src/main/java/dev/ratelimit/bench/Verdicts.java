package dev.ratelimit.bench;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * A JMH secondary result, {@code rejected}: decisions per second that were not allowed. The
 * benchmarks keep every decision allowed, so anything but zero flags a contender whose limits (or,
 * on Redis, whose store) did not hold.
 */
@State(Scope.Thread)
@AuxCounters(AuxCounters.Type.OPERATIONS)
public class Verdicts {
    /** Rejected decisions in this iteration; JMH reports it per second. */
    public long rejected;

    /** Starts each iteration from zero. */
    @Setup(Level.Iteration)
    public void reset() {
        rejected = 0;
    }
}
