package dev.ratelimit;

/**
 * Decides requests against one {@link Limit}, per key (a client id such as {@code apikey:...} or
 * {@code ip:...}). Obtained from {@link RateLimitStore#limiter(Limit)}; thread-safe.
 *
 * <pre>{@code
 * RateLimiter login = store.limiter(Limit.of("login", Policy.fixedWindow(5, Duration.ofMinutes(1))));
 * Decision d = login.tryAcquire("ip:203.0.113.7");
 * if (!d.allowed()) { ... 429, Retry-After: d.retryAfter() ... }
 * }</pre>
 */
public interface RateLimiter {

    /**
     * The limit this limiter enforces.
     *
     * @return the limit it was bound to
     */
    Limit limit();

    /**
     * The limit whose policies this limiter's decisions of {@code source} describe: {@link #limit()},
     * unless the store decides by another limit meanwhile. The Redis store's local fallback
     * ({@link Source#LOCAL_FALLBACK}) enforces this instance's share of every policy of the limit,
     * and its decisions name the policies of that scaled limit. Header writers use it to describe
     * every policy as it is enforced, not only the one a decision names.
     *
     * @param source who decided
     * @return the limit as enforced by that source
     */
    default Limit limitFor(Source source) {
        return limit();
    }

    /**
     * Takes {@code cost} from the key's quota if every policy of the limit allows it, and otherwise
     * takes nothing.
     *
     * @param key  the client's key; any string, not null
     * @param cost the request's weight, {@code >= 1}
     * @return the decision
     * @throws IllegalArgumentException if {@code key} is null or {@code cost < 1}
     */
    Decision tryAcquire(String key, long cost);

    /**
     * {@link #tryAcquire(String, long)} with cost 1.
     *
     * @param key the client's key
     * @return the decision
     */
    default Decision tryAcquire(String key) {
        return tryAcquire(key, 1);
    }
}
