package dev.ratelimit.bench;

import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * A benchmark thread's position in a pre-drawn {@link KeyShape} sequence (threads start far apart,
 * so they do not walk the same keys in step) and its {@link FreshKeys} builder.
 */
@State(Scope.Thread)
public class Cursor {
    private int i = (int) Thread.currentThread().getId() * 1_000_003;
    private final FreshKeys fresh = new FreshKeys();

    /** The next key index of {@code draws}, a sequence of {@link KeyShape#DRAWS} indexes. */
    public int next(int[] draws) {
        return draws[(i++) & (KeyShape.DRAWS - 1)];
    }

    /** A new key string for index {@code k}, built as a filter builds it per request. */
    public String freshKey(int k) {
        return fresh.key(k);
    }
}
