package dev.ratelimit.store.redis;

import dev.ratelimit.RateLimitListener;
import dev.ratelimit.StoreHealth;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A listener that keeps what a store told it: its errors, and its health changes as "PREVIOUS->CURRENT". */
final class RecordingListener implements RateLimitListener {
    final List<Throwable> errors = new CopyOnWriteArrayList<>();
    final List<String> health = new CopyOnWriteArrayList<>();

    @Override
    public void onStoreError(Throwable error) {
        errors.add(error);
    }

    @Override
    public void onHealthChange(StoreHealth previous, StoreHealth current) {
        health.add(previous + "->" + current);
    }
}
