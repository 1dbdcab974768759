package dev.ratelimit.algorithm;

/**
 * A ring of non-decreasing timestamps (µs), one per admitted unit of cost, grown on demand up to a
 * fixed capacity. Not thread-safe: the store's lock guards it.
 */
final class TimestampLog {
    private long[] ring;
    private int head;
    private int size;
    private final int capacity;

    TimestampLog(int capacity) {
        this.capacity = capacity;
        this.ring = new long[Math.min(capacity, 4)];
    }

    int size() {
        return size;
    }

    /** The i-th oldest timestamp, 0-based. */
    long get(int i) {
        return ring[(head + i) % ring.length];
    }

    long newest() {
        return get(size - 1);
    }

    /** Index of the first timestamp {@code > bound}, by binary search (timestamps are ordered). */
    int firstAfter(long bound) {
        int lo = 0;
        int hi = size;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (get(mid) > bound) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo;
    }

    /** Forgets the {@code n} oldest timestamps. */
    void dropOldest(int n) {
        head = (head + n) % ring.length;
        size -= n;
        if (size == 0) {
            head = 0;
        }
    }

    /** Appends {@code t} {@code n} times; the caller keeps the size within the capacity. */
    void append(long t, int n) {
        ensureRoom(size + n);
        for (int i = 0; i < n; i++) {
            ring[(head + size) % ring.length] = t;
            size++;
        }
    }

    private void ensureRoom(int needed) {
        if (needed <= ring.length) {
            return;
        }
        int length = ring.length;
        while (length < needed) {
            length = length * 2;
        }
        long[] grown = new long[Math.min(Math.max(length, needed), capacity)];
        for (int i = 0; i < size; i++) {
            grown[i] = get(i);
        }
        ring = grown;
        head = 0;
    }
}
