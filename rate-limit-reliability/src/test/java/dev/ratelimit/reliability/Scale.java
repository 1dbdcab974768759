package dev.ratelimit.reliability;

import java.time.Duration;

/**
 * The figures of the suite: the short form runs in every {@code mvn verify} and takes a couple of
 * minutes on two cores; the long form ({@code -Dreliability.long=true}) runs the full
 * figures. Client threads are the same in both; only durations and counts shrink.
 */
final class Scale {
    /** Whether the long form runs. */
    static final boolean LONG = Boolean.getBoolean("reliability.long");

    private Scale() {
    }

    /** Client threads per app instance racing on one key. */
    static int threadsPerInstance() {
        return 32;
    }

    /** Client threads in the fault scenarios, over both instances. */
    static int faultThreads() {
        return 32;
    }

    /** How long 2 x 32 threads race on one key, per algorithm. */
    static Duration perAlgorithm() {
        return LONG ? Duration.ofSeconds(10) : Duration.ofSeconds(2);
    }

    /** How long Redis stays dead (or paused) under load. */
    static Duration outage() {
        return LONG ? Duration.ofSeconds(10) : Duration.ofSeconds(3);
    }

    /** Load before a fault and after recovery. */
    static Duration steady() {
        return LONG ? Duration.ofSeconds(5) : Duration.ofSeconds(1);
    }

    /** Distinct API keys in the in-memory key flood. */
    static int floodKeys() {
        return LONG ? 1_000_000 : 150_000;
    }

    /** Distinct API keys in the Redis key flood (every key's TTL is then checked). */
    static int redisFloodKeys() {
        return LONG ? 100_000 : 10_000;
    }

    /** How long the soak runs at twice the limits. */
    static Duration soak() {
        return LONG ? Duration.ofMinutes(5) : Duration.ofSeconds(30);
    }

    /** The soak's measuring window: one heap-after-GC sample and one p99 per window. */
    static Duration soakWindow() {
        return LONG ? Duration.ofSeconds(15) : Duration.ofSeconds(3);
    }

    /**
     * The steepest heap trend (MiB per minute, after warm-up) a soak may show. Five minutes at about
     * 900 requests a second tell a leak of some 40 bytes a request (2 MiB/min) from noise; thirty
     * seconds cannot (buffer pools and caches still grow in 1 MiB steps), so the short form only
     * catches a gross leak, some 200 bytes a request.
     */
    static double maxHeapTrendMibPerMinute() {
        return LONG ? 2.0 : 10.0;
    }

    /** "short" or "long", for reports. */
    static String form() {
        return LONG ? "long" : "short";
    }
}
