package dev.ratelimit.servlet;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Jedis is optional: a filter on the in-memory store starts on a classpath without it. */
class OptionalJedisTest {

    /** The test classpath without Jedis, in a loader of its own. */
    private static URLClassLoader withoutJedis() throws Exception {
        List<URL> urls = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!Path.of(entry).getFileName().toString().startsWith("jedis-")) {
                urls.add(Path.of(entry).toUri().toURL());
            }
        }
        return new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
    }

    /** Runs {@code new RateLimitFilter().init(new MapFilterConfig(params))} inside {@code loader}; the init failure, if any. */
    private static Throwable init(ClassLoader loader, String... params) throws Exception {
        assertThat(loader.getResource("redis/clients/jedis/UnifiedJedis.class")).isNull();
        Class<?> filterClass = loader.loadClass(RateLimitFilter.class.getName());
        Class<?> configClass = loader.loadClass(MapFilterConfig.class.getName());
        Class<?> filterConfigInterface = loader.loadClass("jakarta.servlet.FilterConfig");
        var constructor = configClass.getDeclaredConstructor(String[].class);
        constructor.setAccessible(true);
        Object config = constructor.newInstance((Object) params);
        Object filter = filterClass.getConstructor().newInstance();
        try {
            filterClass.getMethod("init", filterConfigInterface).invoke(filter, config);
            filterClass.getMethod("destroy").invoke(filter);
            return null;
        } catch (InvocationTargetException e) {
            return e.getCause();
        }
    }

    @Test
    void startsOnTheInMemoryStoreWithoutJedisOnTheClasspath() throws Exception {
        assertThat(OptionalJedisTest.class.getClassLoader().getResource("redis/clients/jedis/UnifiedJedis.class")).isNotNull();
        try (URLClassLoader loader = withoutJedis()) {
            assertThat(init(loader, "store", "memory", "header-style", "ietf")).isNull();
        }
    }

    @Test
    void saysWhatIsMissingWhenARedisStoreIsAskedForWithoutJedis() throws Exception {
        try (URLClassLoader loader = withoutJedis()) {
            Throwable failure = init(loader, "store", "redis://:hunter2@127.0.0.1:6379");

            assertThat(failure.getClass().getName()).isEqualTo("jakarta.servlet.ServletException");
            assertThat(failure.getMessage()).contains("init-param store=\"redis://***@127.0.0.1:6379\"")
                    .contains("the Redis store needs redis.clients:jedis (8.0.0 or later) on the class path").doesNotContain("hunter2");
        }
    }
}
