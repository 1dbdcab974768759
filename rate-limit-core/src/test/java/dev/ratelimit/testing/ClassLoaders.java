package dev.ratelimit.testing;

import org.awaitility.Awaitility;

import java.lang.ref.WeakReference;
import java.time.Duration;

/** For tests that run an application in a class loader of its own, as an application server would. */
public final class ClassLoaders {
    private ClassLoaders() {
    }

    /**
     * Waits (up to 20 s, collecting garbage meanwhile) until the class loader {@code undeployed} refers
     * to has been collected, and fails if it is still held: nothing the application did may keep it.
     *
     * @param undeployed the application's class loader, referred to weakly
     */
    public static void awaitCollected(WeakReference<ClassLoader> undeployed) {
        Awaitility.await("the application's class loader collected").atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(100)).until(() -> {
                    System.gc();
                    return undeployed.get() == null;
                });
    }
}
