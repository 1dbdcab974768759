package dev.ratelimit.servlet.client;

import dev.ratelimit.InvalidConfigurationException;

import java.util.ArrayList;
import java.util.List;

/**
 * The proxies whose forwarding headers are believed: a list of CIDR blocks. A request's
 * {@code X-Forwarded-For} or {@code Forwarded} header is read only when the direct peer
 * ({@code request.getRemoteAddr()}) is inside one of them; from anyone else it is ignored, since
 * any client can write it.
 *
 * <pre>{@code
 * TrustedProxies proxies = TrustedProxies.of(List.of("10.0.0.0/8", "2001:db8::/32"));
 * }</pre>
 */
public final class TrustedProxies {
    private final Cidr[] blocks;

    private TrustedProxies(Cidr[] blocks) {
        this.blocks = blocks;
    }

    /**
     * No trusted proxy: forwarding headers are never read.
     *
     * @return an empty set of proxies
     */
    public static TrustedProxies none() {
        return new TrustedProxies(new Cidr[0]);
    }

    /**
     * The proxies in {@code cidrs}, e.g. {@code ["10.0.0.0/8", "127.0.0.1"]}. A block of every address
     * of a family ({@code 0.0.0.0/0}, {@code ::/0}, {@code ::ffff:0:0/96}) is accepted, for an app that
     * only its proxies can reach (the filter warns of it when built: any client that reaches the app
     * directly picks its own address by writing the header).
     *
     * @param cidrs IP addresses or CIDR blocks
     * @return the proxies
     * @throws InvalidConfigurationException naming the entry ({@code trustedProxies[1]}) that is not a CIDR block,
     *                                       or {@code trustedProxies} for a null list
     */
    public static TrustedProxies of(List<String> cidrs) {
        if (cidrs == null) {
            throw new InvalidConfigurationException("trustedProxies", "must be a list (empty, or TrustedProxies.none(), for none), was null");
        }
        List<Cidr> parsed = new ArrayList<>();
        for (int i = 0; i < cidrs.size(); i++) {
            try {
                parsed.add(Cidr.parse(cidrs.get(i)));
            } catch (InvalidConfigurationException e) {
                throw new InvalidConfigurationException("trustedProxies[" + i + "]", e.problem());
            }
        }
        return new TrustedProxies(parsed.toArray(new Cidr[0]));
    }

    /**
     * The first block of every address of a family ({@code 0.0.0.0/0}, {@code ::/0}), if any.
     *
     * @return that block, or null
     */
    public Cidr everyAddressBlock() {
        for (Cidr block : blocks) {
            if (block.prefixLength() == 0) {
                return block;
            }
        }
        return null;
    }

    /**
     * Whether no proxy is trusted.
     *
     * @return true for no blocks
     */
    public boolean isEmpty() {
        return blocks.length == 0;
    }

    /**
     * Whether {@code address} belongs to a trusted proxy.
     *
     * @param address 4 or 16 bytes, as from {@link IpAddresses#parse}
     * @return true if a block contains it
     */
    public boolean contains(byte[] address) {
        for (Cidr block : blocks) {
            if (block.contains(address)) {
                return true;
            }
        }
        return false;
    }

    /** The blocks, e.g. {@code [10.0.0.0/8]}. */
    @Override
    public String toString() {
        return java.util.Arrays.toString(blocks);
    }
}
