package dev.ratelimit;

/**
 * A policy or configuration value is invalid. The message names where the value sits and what is
 * wrong with it, e.g. {@code tiers.pro.scan.capacity: must be > 0, was 0}.
 */
public final class InvalidConfigurationException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String path;
    private final String problem;

    /**
     * @param path    the field or JSON path of the bad value, e.g. {@code capacity}
     * @param problem what is wrong, including the value, e.g. {@code must be > 0, was 0}
     */
    public InvalidConfigurationException(String path, String problem) {
        super(path + ": " + problem);
        this.path = path;
        this.problem = problem;
    }

    /** The field or JSON path of the bad value. */
    public String path() {
        return path;
    }

    /** What is wrong, including the bad value. */
    public String problem() {
        return problem;
    }

    /** The same problem, located under {@code parent} (e.g. {@code tiers.pro.scan}). */
    public InvalidConfigurationException under(String parent) {
        InvalidConfigurationException e = new InvalidConfigurationException(parent + "." + path, problem);
        e.initCause(this);
        return e;
    }
}
