package dev.ratelimit;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One {@link Waiter}'s lines: the threads waiting on one key of one limiter take turns, in the order
 * they came, so that only the thread whose turn it is calls the store. A line exists while someone is
 * in it.
 */
final class WaitLines {
    /** A turn at the head of a line, given back by {@link #close()}. */
    interface Turn extends AutoCloseable {
        @Override
        void close();
    }

    private record Place(RateLimiter limiter, String key) {
    }

    private static final class Line {
        final ReentrantLock turn = new ReentrantLock(true); // fair: a timed tryLock queues in arrival order
        int members; // changed only inside the map's compute for this line's place
    }

    private final ConcurrentHashMap<Place, Line> lines = new ConcurrentHashMap<>();

    /**
     * Joins the line of {@code key} in {@code limiter} and waits up to {@code timeoutMicros} for its turn.
     *
     * @return the turn, to close when done with the key; null if it did not come in time (the line is left)
     * @throws InterruptedException if the thread is interrupted while it waits (the line is left)
     */
    Turn await(RateLimiter limiter, String key, long timeoutMicros) throws InterruptedException {
        Place place = new Place(limiter, key);
        Line line = lines.compute(place, (p, existing) -> {
            Line joined = existing == null ? new Line() : existing;
            joined.members++;
            return joined;
        });
        boolean turn = false;
        try {
            turn = line.turn.tryLock(Math.max(0, timeoutMicros), TimeUnit.MICROSECONDS);
        } finally {
            if (!turn) {
                leave(place);
            }
        }
        if (!turn) {
            return null;
        }
        return () -> {
            line.turn.unlock();
            leave(place);
        };
    }

    /** Whether someone is in the line of {@code key} in {@code limiter}. */
    boolean occupied(RateLimiter limiter, String key) {
        return lines.containsKey(new Place(limiter, key));
    }

    /** The lines that have someone in them. */
    int size() {
        return lines.size();
    }

    private void leave(Place place) {
        lines.computeIfPresent(place, (p, line) -> --line.members == 0 ? null : line);
    }
}
