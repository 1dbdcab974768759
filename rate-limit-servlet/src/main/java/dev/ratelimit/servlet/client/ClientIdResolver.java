package dev.ratelimit.servlet.client;

import jakarta.servlet.http.HttpServletRequest;

/**
 * Says who sent a request: the key its quota is counted under, e.g. {@code apikey:sk-pro-123} or
 * {@code ip:203.0.113.7}. The filter's one seam for client identity; implementations must be
 * thread-safe and fast (called on every limited request).
 *
 * <pre>{@code
 * // Count per authenticated user, falling back to the default:
 * ClientIdResolver byUser = request -> request.getUserPrincipal() != null
 *         ? "user:" + request.getUserPrincipal().getName()
 *         : standard.resolve(request);
 * }</pre>
 */
@FunctionalInterface
public interface ClientIdResolver {

    /**
     * The client id of {@code request}; never null.
     *
     * @throws InvalidClientException when the request's identity is unusable (the filter answers 400
     *                                and counts nothing)
     */
    String resolve(HttpServletRequest request);

    /**
     * The default: {@code apikey:<key>} from the {@code apiKeyHeader} header, else
     * {@code ip:<address>} with the address canonical (see {@link IpAddresses}) and, when the peer is
     * a trusted proxy, taken from {@code forwardedHeader} (see {@link TrustedProxies}). A key longer
     * than {@code maxApiKeyLength}, a key with any character outside visible ASCII
     * ({@code !} to {@code ~}), or the key header sent twice is an {@link InvalidClientException}. An
     * empty key header counts as no key. With {@code Authorization} as {@code apiKeyHeader}, the key
     * is the token of {@code Bearer <token>} (the scheme in any case), a value of one word is the key
     * as it is, and another scheme counts as no key. A peer that is not an IP literal is {@code ip:unknown}.
     */
    static ClientIdResolver apiKeyOrIp(String apiKeyHeader, int maxApiKeyLength, TrustedProxies trustedProxies,
                                       ForwardedHeader forwardedHeader) {
        return apiKeyOrIp(apiKeyHeader, maxApiKeyLength, trustedProxies, forwardedHeader, ApiKeyVerifier.ANY_KEY);
    }

    /**
     * The default with a {@link ApiKeyVerifier}: as {@link #apiKeyOrIp(String, int, TrustedProxies, ForwardedHeader)},
     * but a well-formed key {@code verifier} does not know counts as no key (the client is its address).
     */
    static ClientIdResolver apiKeyOrIp(String apiKeyHeader, int maxApiKeyLength, TrustedProxies trustedProxies,
                                       ForwardedHeader forwardedHeader, ApiKeyVerifier verifier) {
        return new ApiKeyOrIpResolver(apiKeyHeader, maxApiKeyLength, trustedProxies, forwardedHeader, verifier);
    }
}
