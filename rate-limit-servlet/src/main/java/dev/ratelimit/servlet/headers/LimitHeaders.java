package dev.ratelimit.servlet.headers;

import dev.ratelimit.Decision;
import dev.ratelimit.Durations;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.Verdict;

import java.util.List;
import java.util.function.BiConsumer;

/**
 * The rate-limit header fields of one {@link Limit}, written from a {@link Decision} so the answer and
 * its headers cannot disagree. Build one per limit, once ({@link #of}); {@link #write} is cheap.
 *
 * <p>For {@code scan} = 10 tokens refilled at 1/s, after the first request at 12:00:00.25:
 * <pre>
 * X-RateLimit-Limit: 10
 * X-RateLimit-Remaining: 9
 * X-RateLimit-Reset: 1767268802          (epoch seconds when the quota is full again, rounded up)
 * X-RateLimit-Tier: free
 * RateLimit-Policy: "scan";q=10;w=10
 * RateLimit: "scan";r=9;t=1
 * </pre>
 *
 * <p><b>Composite limits.</b> {@code RateLimit-Policy} lists every policy as its own item: the first
 * is named after the limit, the others after the limit and their position, e.g.
 * {@code "scan";q=10;w=1, "scan-1";q=1000;w=3600}. {@code RateLimit} and the {@code X-} fields describe
 * the one policy the decision names: the one closest to rejecting, or on a rejection the one that
 * made the client wait longest.
 *
 * <p><b>Values.</b> {@code q} is the policy's {@link Policy#limit()}, {@code w} its
 * {@link Policy#window()} in whole seconds rounded up (at least 1), {@code r} the remaining quota,
 * {@code t} the seconds until the quota is full again, rounded up; on a rejection {@code t} equals
 * {@code Retry-After}. Write a decision with the headers of the limit it was made by,
 * {@link dev.ratelimit.RateLimiter#limitFor}{@code (decision.source())}: for the Redis store's local
 * fallback, this instance's share of every policy, so that every item of {@code RateLimit-Policy}
 * says what this instance enforces and agrees with {@code r} and {@code X-RateLimit-Limit}. No partition key ({@code pk}) is sent: it would expose the client id. When the
 * store could not decide (fail-open, fail-closed, or unavailable) only what is known without it is
 * sent: {@code X-RateLimit-Tier} and {@code RateLimit-Policy}.
 */
public final class LimitHeaders {
    /** Every header field {@link #write} may set for a decision that passes, in either style. */
    private static final List<String> FIELDS = List.of("X-RateLimit-Limit", "X-RateLimit-Remaining",
            "X-RateLimit-Reset", "X-RateLimit-Tier", "RateLimit", "RateLimit-Policy");
    private final Limit limit;
    private final String[] itemNames;
    /** Per policy, computed once: the quoted item name, the limit as text and the whole item. */
    private final String[] quotedNames;
    private final String[] limitTexts;
    private final String[] items;
    private final String policyField;

    private LimitHeaders(Limit limit) {
        this.limit = limit;
        List<Policy> policies = limit.policies();
        this.itemNames = new String[policies.size()];
        this.quotedNames = new String[policies.size()];
        this.limitTexts = new String[policies.size()];
        this.items = new String[policies.size()];
        for (int i = 0; i < policies.size(); i++) {
            itemNames[i] = i == 0 ? limit.name() : limit.name() + "-" + i;
            quotedNames[i] = quoted(itemNames[i]);
            limitTexts[i] = Long.toString(policies.get(i).limit());
            items[i] = item(i, policies.get(i));
        }
        this.policyField = String.join(", ", items);
    }

    private String item(int i, Policy policy) {
        return quotedNames[i] + ";q=" + policy.limit() + ";w=" + ceilSeconds(Durations.toMicros(policy.window()));
    }

    /**
     * The policy field for a decision: this limit's, unless the decision describes a policy the limit
     * does not hold (a custom store deciding by another limit without saying so through
     * {@link dev.ratelimit.RateLimiter#limitFor}), whose item then says the quota {@code r} counts against.
     */
    private String policyField(int index, Decision decision) {
        Policy decided = decision.policy();
        Policy configured = limit.policies().get(index);
        if (decided == null || decided == configured || decided.equals(configured)) {
            return policyField;
        }
        String[] scaled = items.clone();
        scaled[index] = item(index, decided);
        return String.join(", ", scaled);
    }

    /**
     * The header fields of {@code limit}.
     *
     * @param limit the limit
     * @return its header fields, with its {@code RateLimit-Policy} value computed once
     */
    public static LimitHeaders of(Limit limit) {
        return new LimitHeaders(limit);
    }

    /**
     * The {@code RateLimit-Policy} value of the limit's own policies.
     *
     * @return the value, e.g. {@code "scan";q=10;w=10}
     */
    public String policyField() {
        return policyField;
    }

    /**
     * The item name of the policy {@code decision} describes.
     *
     * @param decision a decision of this limit
     * @return the name, e.g. {@code scan} or {@code scan-1}; the first policy's when the decision names
     *         none of the limit's policies
     */
    public String itemName(Decision decision) {
        return itemNames[index(decision)];
    }

    /** The index of the policy {@code decision} describes (0 if none). */
    private int index(Decision decision) {
        List<Policy> policies = limit.policies();
        for (int i = 0; i < policies.size(); i++) {
            if (policies.get(i) == decision.policy()) {
                return i; // the store's own policy object: the common case, no equals needed
            }
        }
        return Math.max(0, policies.indexOf(decision.policy()));
    }

    /**
     * Sets the header fields for {@code decision} on {@code header} (e.g. {@code response::setHeader}).
     *
     * @param header            sets one header field, given its name and value
     * @param style             which fields to write
     * @param tier              the client's tier, for {@code X-RateLimit-Tier}
     * @param decision          the decision, of this limit
     * @param nowMicros         the clock's reading the decision's reset time is relative to: the
     *                          store's own, or one taken just before it decided (a later one pushes an
     *                          epoch-aligned reset into the next second)
     * @param retryAfterSeconds the {@code Retry-After} to send (then also {@code RateLimit}'s {@code t}),
     *                          or 0 for none
     */
    public void write(BiConsumer<String, String> header, HeaderStyle style, String tier, Decision decision,
                      long nowMicros, long retryAfterSeconds) {
        boolean known = decision.hasNumbers();
        int index = index(decision);
        if (style.x()) {
            if (known) {
                long limit = decision.limit();
                header.accept("X-RateLimit-Limit", limit == this.limit.policies().get(index).limit()
                        ? limitTexts[index] : Long.toString(limit));
                header.accept("X-RateLimit-Remaining", Long.toString(decision.remaining()));
                long resetAt = decision.resetAfterMicros() > Long.MAX_VALUE - nowMicros ? Long.MAX_VALUE
                        : nowMicros + decision.resetAfterMicros();
                header.accept("X-RateLimit-Reset", Long.toString(ceilSeconds(resetAt)));
            }
            header.accept("X-RateLimit-Tier", tier);
        }
        if (style.ietf()) {
            header.accept("RateLimit-Policy", known ? policyField(index, decision) : policyField);
            if (known) {
                long t = retryAfterSeconds > 0 ? retryAfterSeconds : ceilSeconds(decision.resetAfterMicros());
                header.accept("RateLimit", quotedNames[index] + ";r=" + decision.remaining() + ";t=" + t);
            }
        }
        if (retryAfterSeconds > 0) {
            header.accept("Retry-After", Long.toString(retryAfterSeconds));
        }
    }

    /**
     * Removes every header field {@link #write} may set, in either style, through {@code header},
     * called with a null value ({@code HttpServletResponse.setHeader} removes a header set to null):
     * before one filter instance's headers replace another's on the same response, so that none of
     * the other's stay mixed in (its numbers, or a field of a style this one does not write).
     *
     * @param header sets one header field, called with each name and null
     */
    public static void clear(BiConsumer<String, String> header) {
        for (String name : FIELDS) {
            header.accept(name, null);
        }
    }

    /**
     * The {@code Retry-After} for a decision: its wait in whole seconds, rounded up, at least 1
     * (0.2 s and 1 s give 1, 1.5 s gives 2); 0 when it has none (allowed, or never passable). A
     * rejection without a wait (a custom store's) gets the time until its quota is back, at least 1:
     * an upper bound, never less than the real wait.
     *
     * @param decision the decision
     * @return the seconds to send, or 0 for no {@code Retry-After}
     */
    public static long retryAfterSeconds(Decision decision) {
        if (decision.allowed() || decision.verdict() == Verdict.COST_EXCEEDS_LIMIT) {
            return 0;
        }
        long wait = decision.retryAfterMicros() == Decision.NEVER ? decision.resetAfterMicros() : decision.retryAfterMicros();
        return Math.max(1, ceilSeconds(wait));
    }

    /** {@code micros} in whole seconds, rounded up; at least 1 for a positive duration, 0 otherwise. */
    static long ceilSeconds(long micros) {
        return micros <= 0 ? 0 : (micros - 1) / 1_000_000L + 1;
    }

    /** An RFC 8941 sf-string. */
    private static String quoted(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
