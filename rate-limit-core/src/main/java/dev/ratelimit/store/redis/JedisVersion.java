package dev.ratelimit.store.redis;

import redis.clients.jedis.UnifiedJedis;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * The Jedis on the class path, checked when a store is built. The store is compiled against Jedis 8;
 * an older Jedis (Spring Boot 3.5's dependency management picks 6.0.0, for one) builds, then fails
 * every call with a {@code NoSuchMethodError}, which would leave every decision to the failure mode
 * for the life of the process. So an older major version fails at start-up instead.
 */
final class JedisVersion {
    /** The oldest major version whose binaries the store links with (8.0.0 does; 7.5.3 and 6.0.0 do not). */
    static final int MIN_MAJOR = 8;

    private JedisVersion() {
    }

    /**
     * Throws when Jedis or its pool (commons-pool2) is missing, or the Jedis on the class path is older
     * than {@value #MIN_MAJOR}; a version it cannot read passes.
     */
    static void check() {
        requireClass("redis.clients.jedis.UnifiedJedis", "redis.clients:jedis (8.0.0 or later)");
        requireClass("org.apache.commons.pool2.impl.GenericObjectPool",
                "org.apache.commons:commons-pool2, which Jedis depends on (was it excluded?)");
        check(onClassPath());
    }

    /** Throws naming {@code artifact} when {@code className} cannot be loaded from the store's class loader. */
    static void requireClass(String className, String artifact) {
        try {
            Class.forName(className, false, JedisVersion.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("the Redis store needs " + artifact + " on the class path, and " + className
                    + " is not there; add the dependency (see the README's Redis store section)", e);
        } catch (LinkageError e) {
            throw new IllegalStateException("the Redis store needs " + artifact + ", and " + className
                    + " cannot be loaded: " + e, e);
        }
    }

    static void check(String version) {
        int major = majorOf(version);
        if (major >= 0 && major < MIN_MAJOR) {
            throw new IllegalStateException("Jedis " + version + " is on the class path, but the Redis store needs Jedis "
                    + MIN_MAJOR + ".0.0 or later (with an older one every call fails with NoSuchMethodError); "
                    + "depend on redis.clients:jedis 8 (with Spring Boot's dependency management: the property jedis.version)");
        }
    }

    /** The major version, or -1 when {@code version} is not {@code <digits>.<anything>}. */
    static int majorOf(String version) {
        if (version == null) {
            return -1;
        }
        int dot = version.indexOf('.');
        String major = dot < 0 ? version : version.substring(0, dot);
        if (major.isEmpty() || major.length() > 4 || !major.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return -1;
        }
        return Integer.parseInt(major);
    }

    /** Jedis' own record of its version (its jar's {@code redis/clients/jedis/pom.properties}), or null. */
    private static String onClassPath() {
        try (InputStream in = UnifiedJedis.class.getResourceAsStream("pom.properties")) {
            if (in == null) {
                return null;
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version");
        } catch (IOException | IllegalArgumentException e) {
            return null;
        }
    }
}
