package dev.ratelimit.bench;

import java.nio.charset.StandardCharsets;

/**
 * Builds a new key string per request the way a servlet filter does: the raw API key decoded from
 * header bytes the container has just read (so they are in the CPU cache), then
 * {@code "apikey:" + rawKey}. Computing the bytes from the key's index, instead of reading a
 * pre-built string, keeps a cache miss on a million stored strings out of every contender's
 * measurement. One instance per thread; not thread-safe.
 */
public final class FreshKeys {
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] RAW_PREFIX = "sk-pro-".getBytes(StandardCharsets.US_ASCII);

    private final byte[] header = new byte[RAW_PREFIX.length + 8];

    public FreshKeys() {
        System.arraycopy(RAW_PREFIX, 0, header, 0, RAW_PREFIX.length);
    }

    /** A new {@code String} equal to {@link KeyShape#PREFIX} {@code + KeyShape.rawKey(i)}. */
    public String key(int i) {
        return KeyShape.PREFIX + rawKey(i);
    }

    /** A new {@code String} equal to {@link KeyShape#rawKey(int)}, decoded from header bytes. */
    public String rawKey(int i) {
        int value = KeyShape.keyValue(i);
        int digits = Math.max(1, (Integer.SIZE - Integer.numberOfLeadingZeros(value) + 3) / 4);
        int end = RAW_PREFIX.length + digits;
        for (int p = end - 1; p >= RAW_PREFIX.length; p--) {
            header[p] = HEX[value & 0xF];
            value >>>= 4;
        }
        return new String(header, 0, end, StandardCharsets.ISO_8859_1);
    }
}
