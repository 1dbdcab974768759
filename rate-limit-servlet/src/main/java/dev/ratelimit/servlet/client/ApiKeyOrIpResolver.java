package dev.ratelimit.servlet.client;

import dev.ratelimit.InvalidConfigurationException;
import jakarta.servlet.http.HttpServletRequest;

import java.util.Enumeration;

/**
 * {@link ClientIdResolver#apiKeyOrIp}: the API key header, else the (forwarded) client address. With
 * {@code Authorization} as the header, the key is the token of {@code Bearer <token>} (or a value of
 * one word, without a scheme), and a request with another scheme ({@code Basic ...}) is one without a key.
 */
final class ApiKeyOrIpResolver implements ClientIdResolver {
    /** The longest key cap accepted; containers refuse longer header lines anyway. */
    static final int MAX_KEY_LENGTH_CAP = 8192;

    private final String apiKeyHeader;
    private final boolean bearer;
    private final int maxApiKeyLength;
    private final TrustedProxies trustedProxies;
    private final ForwardedHeader forwardedHeader;
    private final ApiKeyVerifier verifier;
    private final ClientIdResolver address;

    ApiKeyOrIpResolver(String apiKeyHeader, int maxApiKeyLength, TrustedProxies trustedProxies, ForwardedHeader forwardedHeader,
                       ApiKeyVerifier verifier) {
        if (apiKeyHeader == null || apiKeyHeader.isEmpty() || !apiKeyHeader.chars().allMatch(c -> ForwardedChain.isTokenChar((char) c))) {
            throw new InvalidConfigurationException("apiKeyHeader", "must be an HTTP header name, was "
                    + (apiKeyHeader == null ? "null" : "\"" + apiKeyHeader.replaceAll("[^\\x20-\\x7e]", "?") + "\""));
        }
        if (maxApiKeyLength < 1 || maxApiKeyLength > MAX_KEY_LENGTH_CAP) {
            throw new InvalidConfigurationException("maxApiKeyLength", "must be 1-" + MAX_KEY_LENGTH_CAP + ", was " + maxApiKeyLength);
        }
        if (trustedProxies == null) {
            throw new InvalidConfigurationException("trustedProxies", "must not be null");
        }
        if (forwardedHeader == null) {
            throw new InvalidConfigurationException("forwardedHeader", "must not be null");
        }
        if (verifier == null) {
            throw new InvalidConfigurationException("apiKeyVerifier", "must not be null");
        }
        this.apiKeyHeader = apiKeyHeader;
        this.bearer = apiKeyHeader.equalsIgnoreCase("Authorization");
        this.maxApiKeyLength = maxApiKeyLength;
        this.trustedProxies = trustedProxies;
        this.forwardedHeader = forwardedHeader;
        this.verifier = verifier;
        this.address = ClientIdResolver.ip(trustedProxies, forwardedHeader);
    }

    @Override
    public String resolve(HttpServletRequest request) {
        Enumeration<String> keys = request.getHeaders(apiKeyHeader);
        if (keys != null && keys.hasMoreElements()) {
            String key = keys.nextElement();
            if (keys.hasMoreElements()) {
                throw new InvalidClientException("invalid_api_key", "Send the " + apiKeyHeader + " header at most once.");
            }
            if (bearer) {
                key = bearerToken(key);
            }
            // A key the verifier does not know is counted as the address, as if no key had been sent.
            if (key != null && !key.isEmpty() && isKnown(validKey(key))) {
                return "apikey:" + key;
            }
        }
        return address.resolve(request);
    }

    /**
     * Asks the verifier. Whatever it throws is a failure to resolve the client, handled by the filter's
     * failure mode as its Javadoc promises: its {@link InvalidClientException} too, which would
     * otherwise become a 400 that blames the client for a broken key store.
     */
    private boolean isKnown(String key) {
        try {
            return verifier.isKnown(key);
        } catch (InvalidClientException e) {
            throw new IllegalStateException("ApiKeyVerifier threw InvalidClientException (" + e.error() + ")", e);
        }
    }

    /**
     * The key in an {@code Authorization} value: the token of {@code Bearer <token>} (RFC 6750: the
     * scheme in any case, then one or more spaces); null for another scheme ({@code Basic ...}) or a
     * bare {@code Bearer}, which carry no API key; and a value of one word, without a scheme, as it is
     * (some APIs send their key so).
     */
    private static String bearerToken(String credentials) {
        if (credentials == null) {
            return null;
        }
        int space = credentials.indexOf(' ');
        if (space < 0) {
            return credentials.equalsIgnoreCase("Bearer") ? null : credentials;
        }
        if (space != 6 || !credentials.regionMatches(true, 0, "Bearer", 0, 6)) {
            return null;
        }
        int start = space;
        while (start < credentials.length() && credentials.charAt(start) == ' ') {
            start++;
        }
        return credentials.substring(start);
    }

    private String validKey(String key) {
        if (key.length() > maxApiKeyLength) {
            throw new InvalidClientException("invalid_api_key", "The " + apiKeyHeader + " header is longer than "
                    + maxApiKeyLength + " characters.");
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c < '!' || c > '~') {
                throw new InvalidClientException("invalid_api_key", "The " + apiKeyHeader
                        + " header may only contain visible ASCII characters (! to ~).");
            }
        }
        return key;
    }

    @Override
    public String toString() {
        return "apiKeyOrIp[header=" + apiKeyHeader + ", maxLength=" + maxApiKeyLength + ", trustedProxies=" + trustedProxies
                + ", forwardedHeader=" + forwardedHeader.headerName() + (verifier == ApiKeyVerifier.ANY_KEY ? "" : ", verifier=" + verifier) + "]";
    }
}
