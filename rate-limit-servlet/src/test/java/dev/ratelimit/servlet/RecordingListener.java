package dev.ratelimit.servlet;

import dev.ratelimit.DecisionEvent;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.Undecided;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A listener that keeps what the filter tells it: decisions, and undecided requests as "REASON passed" or "REASON refused". */
final class RecordingListener implements RateLimitListener {
    final List<DecisionEvent> decisions = new CopyOnWriteArrayList<>();
    final List<String> undecided = new CopyOnWriteArrayList<>();
    /** Both kinds, in the order heard. */
    final List<Object> heard = new CopyOnWriteArrayList<>();

    @Override
    public void onDecision(DecisionEvent event) {
        decisions.add(event);
        heard.add(event);
    }

    @Override
    public void onUndecided(Undecided reason, boolean passedOn) {
        String event = reason + (passedOn ? " passed" : " refused");
        undecided.add(event);
        heard.add(event);
    }
}
