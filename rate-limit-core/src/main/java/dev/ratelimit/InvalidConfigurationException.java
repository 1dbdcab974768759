package dev.ratelimit;

/**
 * A policy or configuration value is invalid. The message names where the value sits and what is
 * wrong with it, e.g. {@code tiers.pro.scan.capacity: must be > 0, was 0}.
 */
public final class InvalidConfigurationException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** The field or JSON path of the bad value. */
    private final String path;
    /** What is wrong, including the bad value. */
    private final String problem;

    /**
     * A problem with the value at {@code path}; the message is {@code path + ": " + problem}.
     *
     * @param path    the field or JSON path of the bad value, e.g. {@code capacity}
     * @param problem what is wrong, including the value, e.g. {@code must be > 0, was 0}
     */
    public InvalidConfigurationException(String path, String problem) {
        super(path + ": " + problem);
        this.path = path;
        this.problem = problem;
    }

    /**
     * The field or JSON path of the bad value.
     *
     * @return the path, e.g. {@code tiers.pro.scan.capacity}
     */
    public String path() {
        return path;
    }

    /**
     * What is wrong, including the bad value.
     *
     * @return the problem, e.g. {@code must be > 0, was 0}
     */
    public String problem() {
        return problem;
    }

    /**
     * The same problem, located under {@code parent} (e.g. {@code tiers.pro.scan}).
     *
     * @param parent the path that contains this one
     * @return a new exception at {@code parent.path}, caused by this one
     */
    public InvalidConfigurationException under(String parent) {
        InvalidConfigurationException e = new InvalidConfigurationException(parent + "." + path, problem);
        e.initCause(this);
        return e;
    }
}
