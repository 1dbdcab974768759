package dev.ratelimit.example.client;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When each route's next request should go, once a response said little quota is left. Each request
 * takes its route's next moment and moves it on by one step, so that threads sharing a client spread
 * out instead of all waking at the same instant. Thread-safe.
 */
final class RoutePacing {
    /** Routes whose next request is paced are remembered up to this many; then forgotten. */
    private static final int MAX_ROUTES = 1024;

    /** A moment taken: how long to wait from now (0: go at once), and why. */
    record Slot(long waitMicros, String why) {
    }

    /** A route's next request goes at {@code untilMicros}, the one after a step later. */
    private record Pace(long untilMicros, long stepMicros, String why) {
    }

    /** Route ({@code GET /api/scan}) to its pace. */
    private final Map<String, Pace> paced = new ConcurrentHashMap<>();

    /**
     * Takes {@code route}'s next moment at {@code now} (clock micros), if it is at most {@code maxWaitMicros}
     * away. A moment further away is not taken (the request goes at once, unpaced), so that requests
     * skipping their pause do not push the schedule ever further ahead of time.
     */
    Slot take(String route, long now, long maxWaitMicros) {
        long[] at = {now};
        String[] why = {""};
        paced.computeIfPresent(route, (r, p) -> {
            long next = Math.max(now, p.untilMicros());
            if (next - now > maxWaitMicros) {
                return p;
            }
            at[0] = next;
            why[0] = p.why();
            return new Pace(next + p.stepMicros(), p.stepMicros(), p.why());
        });
        long wait = at[0] - now;
        return new Slot(wait, wait > 0 ? why[0] : "");
    }

    /**
     * After a response at {@code now}: the route's requests go {@code stepMicros} apart from
     * {@code now + stepMicros} on, or unpaced when {@code stepMicros} is 0. A later moment already taken
     * by a request in flight on another thread stays taken.
     */
    void answered(String route, long now, long stepMicros, String why) {
        if (stepMicros <= 0) {
            paced.remove(route);
            return;
        }
        if (paced.size() >= MAX_ROUTES && !paced.containsKey(route)) {
            paced.clear();
        }
        paced.merge(route, new Pace(now + stepMicros, stepMicros, why),
                (old, fresh) -> old.untilMicros() > fresh.untilMicros() ? new Pace(old.untilMicros(), stepMicros, why) : fresh);
    }
}
