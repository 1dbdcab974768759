package dev.ratelimit.servlet.client;

import dev.ratelimit.InvalidConfigurationException;
import jakarta.servlet.http.HttpServletRequest;
import org.slf4j.LoggerFactory;

import java.util.Enumeration;
import java.util.concurrent.atomic.AtomicBoolean;

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
     * {@code forwardedHeader} from a peer that is not trusted is logged (a warning naming the peer's
     * address): most often a reverse proxy missing from {@code trustedProxies}.
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
        AtomicBoolean warned = new AtomicBoolean();
        return request -> {
            Enumeration<String> forwarded = trustedProxies.isEmpty() ? null : request.getHeaders(headerName);
            String address = ForwardedChain.clientAddress(request.getRemoteAddr(), forwarded, forwardedHeader, trustedProxies);
            // Once: a forwarding header from a peer not trusted is most often a proxy left out of
            // trusted-proxies (or seen from another address family), whose clients then share its quota.
            if (address != null && !warned.get() && request.getHeader(headerName) != null
                    && !ForwardedChain.believes(request.getRemoteAddr(), trustedProxies) && warned.compareAndSet(false, true)) {
                LoggerFactory.getLogger("dev.ratelimit.servlet.RateLimitFilter").warn(ForwardedChain.names(address, request)
                        // A proxy on the peer's own address (a local test) writes it so; so does a container that
                        // took the address from the header (Jetty's ForwardedRequestCustomizer, Undertow's handlers),
                        // believing the left-most entry, the client's own. The header cannot tell which.
                        ? "RateLimitFilter: a request from " + address + " carried a forwarding header naming " + address
                                + " itself: either that is your proxy's address, missing from trusted-proxies (add it, or every"
                                + " client behind the proxy shares its quota), or the container took the address from the header"
                                + " (Jetty's ForwardedRequestCustomizer, Spring Boot's server.forward-headers-strategy=native on"
                                + " Jetty, Undertow's proxy-address-forwarding), believing what the client wrote, so that every"
                                + " client can pick its own quota (turn that off and set trusted-proxies) (said once)"
                        : "RateLimitFilter: a request from " + address + " carried " + headerName + ", which is believed only"
                                + " from trusted proxies, and was counted as " + address + "; if that is your proxy's address,"
                                + " add it to trusted-proxies, or every client behind the proxy shares its quota; if it is a"
                                + " client's, the client wrote the header, which was ignored (said once)");
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
