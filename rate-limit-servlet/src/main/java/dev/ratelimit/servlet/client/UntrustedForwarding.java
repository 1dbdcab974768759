package dev.ratelimit.servlet.client;

import jakarta.servlet.http.HttpServletRequest;
import org.slf4j.LoggerFactory;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Warns of a forwarding header from a peer that is not a trusted proxy: most often a reverse proxy left
 * out of {@code trusted-proxies} (or seen from the other address family), whose clients then all share
 * its quota. Once per peer address, for the first {@link #MAX_PEERS} peers, so that clients writing the
 * header themselves cannot use the warning up before the proxy's first request. Costs one header lookup
 * per request until then.
 */
final class UntrustedForwarding {
    /** Peers warned of at most: a bound on the log lines and the memory, whatever clients send. */
    static final int MAX_PEERS = 16;

    private final String headerName;
    private final TrustedProxies trustedProxies;
    private final Set<String> warned = ConcurrentHashMap.newKeySet();

    UntrustedForwarding(ForwardedHeader header, TrustedProxies trustedProxies) {
        this.headerName = header.headerName();
        this.trustedProxies = trustedProxies;
    }

    /** Warns if {@code request}, counted as {@code address} (canonical), carried the header from a peer not trusted. */
    void check(HttpServletRequest request, String address) {
        if (warned.size() >= MAX_PEERS || request.getHeader(headerName) == null
                || ForwardedChain.believes(request.getRemoteAddr(), trustedProxies) || !warned.add(address)) {
            return;
        }
        LoggerFactory.getLogger("dev.ratelimit.servlet.RateLimitFilter").warn(ForwardedChain.names(address, request)
                // The header cannot tell these apart: a proxy on the peer's own address (a local test) writes
                // it, a container that took the address from the header (believing the left-most entry) leaves
                // it, and a client can write its own address.
                ? "RateLimitFilter: a request from " + address + " carried a forwarding header naming " + address
                        + " itself: a proxy at that address missing from trusted-proxies (if it is your proxy's, add it, or"
                        + " every client behind the proxy shares its quota), a container that took the address from the"
                        + " header (Jetty's ForwardedRequestCustomizer, Spring Boot's server.forward-headers-strategy=native"
                        + " on Jetty or Undertow, Undertow's proxy-address-forwarding: every client can pick its own quota; turn that off"
                        + " and set trusted-proxies), or a client that wrote its own address (ignored) (said once for "
                        + address + ")"
                : "RateLimitFilter: a request from " + address + " carried " + headerName + ", which is believed only from"
                        + " trusted proxies, and was counted as " + address + "; if that is your proxy's address, add it to"
                        + " trusted-proxies, or every client behind the proxy shares its quota; if it is a client's, the"
                        + " client wrote the header, which was ignored (said once for " + address + ")");
    }
}
