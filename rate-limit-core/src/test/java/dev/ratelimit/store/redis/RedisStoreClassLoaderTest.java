package dev.ratelimit.store.redis;

import dev.ratelimit.testing.ClassLoaders;
import dev.ratelimit.testing.RedisCluster;
import dev.ratelimit.testing.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.lang.ref.WeakReference;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application server gives each application a class loader of its own, drops it on undeploy, and
 * serves requests on threads that outlive the application (Jetty's never renew). An application that
 * decided with a Redis store and closed it must leave nothing on those threads, nor any thread of its
 * own, that holds its classes: else each redeploy keeps a copy of them all (Jedis included).
 */
class RedisStoreClassLoaderTest {
    /** The container's long-lived request thread. */
    private final ExecutorService containerThread = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() {
        containerThread.shutdownNow();
    }

    @Test
    void anUndeployedApplicationOnASingleRedisLeavesItsClassLoaderCollectable() throws Exception {
        try (RedisServer redis = RedisServer.start()) {
            assertCollectedAfterUndeploy(redis.url());
        }
    }

    @Test
    void anUndeployedApplicationOnARedisClusterLeavesItsClassLoaderCollectable() throws Exception {
        try (RedisCluster cluster = RedisCluster.start(3, 0)) {
            assertCollectedAfterUndeploy(cluster.url());
        }
    }

    private void assertCollectedAfterUndeploy(String url) throws Exception {
        WeakReference<ClassLoader> undeployed = deployDecideAndUndeploy(url);

        ClassLoaders.awaitCollected(undeployed);
    }

    @SuppressWarnings("unchecked")
    private WeakReference<ClassLoader> deployDecideAndUndeploy(String url) throws Exception {
        URLClassLoader application = new URLClassLoader(testClassPath(), ClassLoader.getPlatformClassLoader());
        Function<String, String> app = (Function<String, String>) application.loadClass(UndeployedApplication.class.getName())
                .getConstructor().newInstance();
        assertThat(app.getClass().getClassLoader()).isSameAs(application);
        String sources = containerThread.submit(() -> app.apply(url)).get(60, TimeUnit.SECONDS);
        assertThat(sources).isEqualTo("STORE ALLOWED;STORE ALLOWED;STORE ALLOWED;STORE REJECTED;DENIAL_CACHE REJECTED;");
        application.close();
        return new WeakReference<>(application);
    }

    /** This test's class path (Surefire's, whose own java.class.path is a jar pointing to it). */
    private static URL[] testClassPath() throws MalformedURLException {
        String path = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<URL> urls = new ArrayList<>();
        for (String entry : path.split(File.pathSeparator)) {
            if (!entry.isBlank()) {
                urls.add(new File(entry).toURI().toURL());
            }
        }
        return urls.toArray(URL[]::new);
    }
}
