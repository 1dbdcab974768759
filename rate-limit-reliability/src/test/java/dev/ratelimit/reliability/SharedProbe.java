package dev.ratelimit.reliability;

import java.net.URI;
import java.util.List;
import java.util.UUID;

/**
 * Whether two instances decide on one shared state right now: for fresh API keys, a request to the
 * first instance then one to the second must say {@code limit - 1} then {@code limit - 2} remaining
 * of the full limit. A local fallback answers from its own share of the limit (another
 * {@code X-RateLimit-Limit}, each instance counting alone), fail-open gives no numbers, fail-closed
 * a 503; none of them passes.
 */
final class SharedProbe {
    private final Http http = new Http();
    private final List<URI> instances;
    private final String path;
    private final long limit;
    private final int keys;

    /** Probes {@code path}, whose limit for a fresh key of the default tier is {@code limit}, with {@code keys} keys at a time. */
    SharedProbe(List<URI> instances, String path, long limit, int keys) {
        if (instances.size() != 2) {
            throw new IllegalArgumentException("instances: two are probed, was " + instances);
        }
        this.instances = instances;
        this.path = path;
        this.limit = limit;
        this.keys = keys;
    }

    /** Whether every one of {@code keys} fresh keys is shared between the instances. */
    boolean shared() {
        for (int i = 0; i < keys; i++) {
            String key = "sk-probe-" + UUID.randomUUID();
            Exchange first = http.get(0, instances.get(0), path, key);
            Exchange second = http.get(1, instances.get(1), path, key);
            boolean ok = first.status() == 200 && second.status() == 200
                    && String.valueOf(limit).equals(first.limit()) && String.valueOf(limit).equals(second.limit())
                    && String.valueOf(limit - 1).equals(first.remaining()) && String.valueOf(limit - 2).equals(second.remaining());
            if (!ok) {
                return false;
            }
        }
        return true;
    }
}
