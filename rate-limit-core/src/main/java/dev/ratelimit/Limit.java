package dev.ratelimit;

import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.StringJoiner;
import java.util.regex.Pattern;

/**
 * A named limit: one policy, or several checked together for the same key (a composite such as
 * 10 per second and 1000 per hour). A request passes only if every policy lets it pass, and a
 * rejection consumes from none of them.
 *
 * <pre>{@code
 * Limit scan = Limit.of("scan",
 *         Policy.tokenBucket(10, 10, Duration.ofSeconds(1)),        // bursts of 10, 10/s
 *         Policy.fixedWindow(1000, Duration.ofHours(1)));          // and 1000 an hour
 * }</pre>
 *
 * @param name     what the limit is called in headers and store keys: 1-64 of {@code [A-Za-z0-9._-]}
 * @param policies one to {@value #MAX_POLICIES} policies
 */
public record Limit(String name, List<Policy> policies) {
    /** The most policies one limit may combine. */
    public static final int MAX_POLICIES = 8;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    /**
     * Validates the name and the policy list, and copies the list.
     *
     * @param name     the limit's name
     * @param policies its policies
     * @throws InvalidConfigurationException for a bad name, no policies, too many, or a null one
     */
    public Limit {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new InvalidConfigurationException("name", "must be 1-64 characters of [A-Za-z0-9._-], was "
                    + (name == null ? "null" : "\"" + name.replaceAll("[\\p{Cntrl}]", "?") + "\""));
        }
        if (policies == null || policies.isEmpty()) {
            throw new InvalidConfigurationException("policies", "must name at least one policy, was " + policies);
        }
        if (policies.size() > MAX_POLICIES) {
            throw new InvalidConfigurationException("policies", "must have at most " + MAX_POLICIES + " policies, was " + policies.size());
        }
        for (int i = 0; i < policies.size(); i++) {
            if (policies.get(i) == null) {
                throw new InvalidConfigurationException("policies[" + i + "]", "must not be null");
            }
        }
        policies = List.copyOf(policies);
    }

    /**
     * A limit named {@code name} made of {@code policies}; validated as by the constructor.
     *
     * @param name     the limit's name
     * @param policies its policies
     * @return the limit
     * @throws InvalidConfigurationException as {@link #Limit}
     */
    public static Limit of(String name, Policy... policies) {
        // Arrays.asList, not List.of: List.of throws a bare NullPointerException on a null policy
        // before the constructor can name its index.
        return new Limit(name, policies == null ? null : Arrays.asList(policies));
    }

    /**
     * Whether this limit combines more than one policy.
     *
     * @return true for two policies or more
     */
    public boolean isComposite() {
        return policies.size() > 1;
    }

    /**
     * A short, stable digest of the policies (16 hex characters): stores bind one limiter per name and
     * fingerprint, so that equal limits share one. (Redis keys carry each policy's state fingerprint
     * instead, which leaves out the numbers a change of which keeps the state's meaning: see the
     * README's "Keys".)
     *
     * @return the first 8 bytes of a SHA-256 of the policies, in hex
     */
    public String fingerprint() {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            byte[] digest = sha.digest(describe(policies).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }

    /**
     * The policies as text, e.g. {@code [TokenBucket[capacity=10, refillTokens=1, refillPeriod=PT1S]]}:
     * each policy's type and its components in declaration order (a specified API), written out here
     * rather than taken from the records' {@code toString}, whose format the JDK leaves open. Store
     * keys must not change with the JDK.
     */
    private static String describe(List<Policy> policies) {
        StringJoiner all = new StringJoiner(", ", "[", "]");
        for (Policy policy : policies) {
            StringJoiner fields = new StringJoiner(", ", policy.getClass().getSimpleName() + "[", "]");
            for (RecordComponent component : policy.getClass().getRecordComponents()) {
                try {
                    fields.add(component.getName() + "=" + component.getAccessor().invoke(policy));
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException("cannot read " + component, e);
                }
            }
            all.add(fields.toString());
        }
        return all.toString();
    }
}
