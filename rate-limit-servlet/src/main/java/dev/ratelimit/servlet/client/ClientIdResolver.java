package dev.ratelimit.servlet.client;

import dev.ratelimit.InvalidConfigurationException;
import jakarta.servlet.http.HttpServletRequest;

import java.util.Enumeration;

/**
 * Says who sent a request: the key its quota is counted under, e.g. {@code apikey:sk-pro-123} or
 * {@code ip:203.0.113.7}. The filter's one seam for client identity; implementations must be
 * thread-safe and fast (called on every limited request).
 *
 * <pre>{@code
 * // Count per authenticated user, else per address (forwarded by your proxies, trusted as such):
 * ClientIdResolver byAddress = ClientIdResolver.ip(TrustedProxies.of(List.of("10.0.0.0/8")), ForwardedHeader.X_FORWARDED_FOR);
 * ClientIdResolver byUser = request -> request.getUserPrincipal() != null
 *         ? "user:" + request.getUserPrincipal().getName()
 *         : byAddress.resolve(request);
 * }</pre>
 */
@FunctionalInterface
public interface ClientIdResolver {

    /**
     * The client id of {@code request}: a kind, a colon and the identity ({@code user:42}), so that it
     * can never equal another kind's id ({@code ip:...}, {@code apikey:...}); any other non-empty text
     * counts as it is. Ids are hashed before a store keeps them and never logged. A request always has a
     * client: without one of your own, return its address ({@link #ip}). Null or an empty id is a broken
     * resolver, handled like an exception it throws: the request is counted against no one and passed on
     * or refused with a {@code 503} as the filter's failure mode says, with a warning naming this class.
     *
     * @param request the request
     * @return the client id
     * @throws InvalidClientException when the request's identity is unusable (the filter answers 400
     *                                and counts nothing)
     */
    String resolve(HttpServletRequest request);

    /**
     * The client's address alone, {@code ip:<address>}, as {@link #apiKeyOrIp} resolves a request without
     * a key: canonical (see {@link IpAddresses}) and, when the peer is one of {@code trustedProxies},
     * taken from {@code forwardedHeader} (see {@link TrustedProxies}); {@code ip:unknown} for a peer
     * that is not an IP literal. The fallback of a resolver of your own. The first request to carry
     * {@code forwardedHeader} from each peer that is not trusted (up to 16 peers) is logged, a warning
     * naming the peer's address: most often a reverse proxy missing from {@code trustedProxies}.
     *
     * @param trustedProxies  the proxies whose forwarding header is believed
     * @param forwardedHeader the header they write
     * @return the resolver
     * @throws dev.ratelimit.InvalidConfigurationException naming a null argument
     */
    static ClientIdResolver ip(TrustedProxies trustedProxies, ForwardedHeader forwardedHeader) {
        if (trustedProxies == null) {
            throw new InvalidConfigurationException("trustedProxies", "must not be null (TrustedProxies.none() for none)");
        }
        if (forwardedHeader == null) {
            throw new InvalidConfigurationException("forwardedHeader", "must not be null");
        }
        String headerName = forwardedHeader.headerName();
        UntrustedForwarding untrusted = new UntrustedForwarding(forwardedHeader, trustedProxies);
        return request -> {
            Enumeration<String> forwarded = trustedProxies.isEmpty() ? null : request.getHeaders(headerName);
            String address = ForwardedChain.clientAddress(request.getRemoteAddr(), forwarded, forwardedHeader, trustedProxies);
            if (address != null) {
                untrusted.check(request, address);
            }
            return "ip:" + (address == null ? "unknown" : address);
        };
    }

    /**
     * The default: {@code apikey:<key>} from the {@code apiKeyHeader} header, else
     * {@code ip:<address>} with the address canonical (see {@link IpAddresses}) and, when the peer is
     * a trusted proxy, taken from {@code forwardedHeader} (see {@link TrustedProxies}). A key longer
     * than {@code maxApiKeyLength}, a key with any character outside visible ASCII
     * ({@code !} to {@code ~}), or the key header sent twice is an {@link InvalidClientException}. An
     * empty key header counts as no key. With {@code Authorization} as {@code apiKeyHeader}, the key
     * is the token of {@code Bearer <token>} (the scheme in any case), a value of one word is the key
     * as it is, and another scheme counts as no key. A peer that is not an IP literal is {@code ip:unknown}.
     *
     * @param apiKeyHeader    the header carrying the key
     * @param maxApiKeyLength the longest key accepted, 1 to 8192
     * @param trustedProxies  the proxies whose forwarding header is believed
     * @param forwardedHeader the header they write
     * @return the resolver
     * @throws InvalidConfigurationException naming an argument that is null, a header name that is not
     *                                       one, or a length outside 1 to 8192
     */
    static ClientIdResolver apiKeyOrIp(String apiKeyHeader, int maxApiKeyLength, TrustedProxies trustedProxies,
                                       ForwardedHeader forwardedHeader) {
        return apiKeyOrIp(apiKeyHeader, maxApiKeyLength, trustedProxies, forwardedHeader, ApiKeyVerifier.ANY_KEY);
    }

    /**
     * The default with a {@link ApiKeyVerifier}: as {@link #apiKeyOrIp(String, int, TrustedProxies, ForwardedHeader)},
     * but a well-formed key {@code verifier} does not know counts as no key (the client is its address).
     *
     * @param apiKeyHeader    the header carrying the key
     * @param maxApiKeyLength the longest key accepted, 1 to 8192
     * @param trustedProxies  the proxies whose forwarding header is believed
     * @param forwardedHeader the header they write
     * @param verifier        which keys are real
     * @return the resolver
     * @throws InvalidConfigurationException as {@link #apiKeyOrIp(String, int, TrustedProxies, ForwardedHeader)},
     *                                       or for a null verifier
     */
    static ClientIdResolver apiKeyOrIp(String apiKeyHeader, int maxApiKeyLength, TrustedProxies trustedProxies,
                                       ForwardedHeader forwardedHeader, ApiKeyVerifier verifier) {
        return new ApiKeyOrIpResolver(apiKeyHeader, maxApiKeyLength, trustedProxies, forwardedHeader, verifier);
    }
}
