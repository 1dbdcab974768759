package dev.ratelimit.store.redis;

import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimiter;

import java.time.Duration;
import java.util.function.Function;

/**
 * An application's whole use of a Redis store, from building it to closing it, for
 * {@link RedisStoreClassLoaderTest} to run in a class loader of its own: given the store's URL, it
 * decides until refused, closes the store and answers with the sources of the decisions.
 */
public final class UndeployedApplication implements Function<String, String> {

    @Override
    public String apply(String url) {
        StringBuilder sources = new StringBuilder();
        try (RedisStore store = RedisStore.builder().url(url).build()) {
            RateLimiter limiter = store.limiter(Limit.of("undeploy", Policy.fixedWindow(3, Duration.ofHours(1))));
            for (int i = 0; i < 5; i++) {
                var decision = limiter.tryAcquire("client");
                sources.append(decision.source()).append(' ').append(decision.verdict()).append(';');
            }
        }
        return sources.toString();
    }
}
