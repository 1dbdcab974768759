package dev.ratelimit.config;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ratelimit.testing.ClassLoaders;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application server gives each application a class loader of its own, which it drops on undeploy,
 * and runs the application's start-up on threads of its own that outlive it (Tomcat's
 * {@code Catalina-utility-N}). Reading the configuration there must leave nothing on such a thread that
 * holds the application's classes: with Jackson's per-thread buffer recycling, it left a buffer that
 * kept every undeployed application's class loader, and all its classes, alive.
 */
class ConfigClassLoaderTest {
    /** The container's long-lived thread. */
    private final ExecutorService containerThread = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() {
        containerThread.shutdownNow();
    }

    @Test
    void anUndeployedApplicationThatReadItsConfigurationLeavesItsClassLoaderCollectable() throws Exception {
        WeakReference<ClassLoader> undeployed = deployReadAndUndeploy();

        ClassLoaders.awaitCollected(undeployed);
    }

    private WeakReference<ClassLoader> deployReadAndUndeploy() throws Exception {
        URLClassLoader application = new URLClassLoader(new URL[] {location(RateLimitConfig.class), location(ObjectMapper.class),
                location(JsonFactory.class), location(JsonAutoDetect.class)}, ClassLoader.getPlatformClassLoader());
        Object config = containerThread.submit(() -> application.loadClass(RateLimitConfig.class.getName())
                .getMethod("defaults").invoke(null)).get(30, TimeUnit.SECONDS);
        assertThat(config.getClass().getClassLoader()).as("read by the application's own classes").isSameAs(application);
        application.close();
        return new WeakReference<>(application);
    }

    private static URL location(Class<?> type) {
        return type.getProtectionDomain().getCodeSource().getLocation();
    }
}
