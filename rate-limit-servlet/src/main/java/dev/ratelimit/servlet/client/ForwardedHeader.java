package dev.ratelimit.servlet.client;

import java.util.Locale;

/**
 * Which forwarding header the trusted proxies write. Only that one is read: a proxy passes the
 * other one on untouched, so reading both would let a client choose its own address.
 */
public enum ForwardedHeader {
    /** {@code X-Forwarded-For: client, proxy1, proxy2}: the de-facto standard (nginx, HAProxy, cloud load balancers). */
    X_FORWARDED_FOR("X-Forwarded-For"),
    /** {@code Forwarded: for=client, for="[2001:db8::1]:4711"} (RFC 7239). */
    FORWARDED("Forwarded");

    private final String headerName;

    ForwardedHeader(String headerName) {
        this.headerName = headerName;
    }

    /**
     * The HTTP header's name.
     *
     * @return the name, e.g. {@code X-Forwarded-For}
     */
    public String headerName() {
        return headerName;
    }

    /**
     * The constant for a header name, case-insensitively.
     *
     * @param name the header's name, surrounding white space ignored; not null
     * @return the constant, or {@code null} for another name
     */
    public static ForwardedHeader forName(String name) {
        for (ForwardedHeader h : values()) {
            if (h.headerName.toLowerCase(Locale.ROOT).equals(name.trim().toLowerCase(Locale.ROOT))) {
                return h;
            }
        }
        return null;
    }
}
