package dev.ratelimit.servlet.client;

/**
 * Says whether an API key is one of yours, so that only real keys get a quota of their own. Without
 * one, every well-formed key is a client: a client that invents a new key per request gets a new
 * quota per request and escapes every limit its address has (a login limit included). With one, a
 * request whose key it does not know is counted as its address ({@code ip:<address>}, in that
 * address's tier), as if it had sent no key; your authentication still answers it afterwards.
 *
 * <p>Called on every limited request that carries a key: implementations must be thread-safe and
 * fast (an in-memory set, or a cache in front of your key store). An exception it throws is a failure
 * to resolve the client, handled by the filter's failure mode.
 *
 * <pre>{@code
 * Set<String> keys = ...; // refreshed from your key store
 * RateLimitFilter filter = RateLimitFilter.builder().apiKeyVerifier(keys::contains).build();
 * }</pre>
 */
@FunctionalInterface
public interface ApiKeyVerifier {

    /** Every well-formed key is a client (the default: the filter cannot tell real keys from invented ones). */
    ApiKeyVerifier ANY_KEY = key -> true;

    /**
     * Whether {@code apiKey} is a real key.
     *
     * @param apiKey the key as sent (trimmed by the container), never null or empty
     * @return true if it is one of yours
     */
    boolean isKnown(String apiKey);
}
