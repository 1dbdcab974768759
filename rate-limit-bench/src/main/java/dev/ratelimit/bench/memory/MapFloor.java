package dev.ratelimit.bench.memory;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The floor: a bare {@link ConcurrentHashMap#get} over the same keys, with no limiting at all. No
 * per-key limiter can be cheaper than finding the key; it also tracks keys with no bound.
 */
final class MapFloor implements Contender {
    private static final Object PRESENT = new Object();
    private final ConcurrentHashMap<String, Object> map;

    MapFloor(int expectedKeys) {
        this.map = new ConcurrentHashMap<>(Math.max(16, expectedKeys * 4 / 3 + 1));
    }

    @Override
    public Object decide(String key) {
        return map.get(key);
    }

    @Override
    public boolean allowed(Object result) {
        return result != null;
    }

    @Override
    public void prepare(String key) {
        map.put(key, PRESENT);
    }
}
