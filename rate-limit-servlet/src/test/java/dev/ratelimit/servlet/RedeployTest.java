package dev.ratelimit.servlet;

import dev.ratelimit.testing.ClassLoaders;
import dev.ratelimit.testing.RedisServer;
import org.eclipse.jetty.ee10.webapp.WebAppContext;
import org.eclipse.jetty.server.handler.ContextHandlerCollection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.lang.ref.WeakReference;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A web application with the filter in its {@code web.xml} and the library in its own class loader, as
 * in a WAR's {@code WEB-INF/lib}, deployed on a running Jetty, undeployed while Jetty keeps serving, then
 * deployed and undeployed again, as a redeploy does. The threads that served its requests (allowed,
 * refused, malformed) outlive each deploy, and nothing the filter left on them, nor any thread of its
 * own, may keep an undeployed application's classes alive.
 *
 * <p>Only the earlier deploy is checked: the JDK keeps the last undeployed one reachable through
 * {@code java.lang.runtime.ObjectMethods}, whose shared method handles cache the last type a record's
 * {@code equals} was made for ({@code MethodHandle.asTypeCache}, JDK-8078641), until the next
 * application's records replace it. On JDK 17 that reference is strong; since JDK 18 it is soft, which
 * the collector clears when memory runs short, not on {@code System.gc()} (a heap dump of this test
 * showed the path; with {@code -XX:SoftRefLRUPolicyMSPerMB=0}, JDK 25 collects the last one too, JDK 17
 * does not). So the JDK holds one application at most, where a leak of ours would hold every one.
 */
class RedeployTest {
    private final ContextHandlerCollection contexts = new ContextHandlerCollection();
    private final TestServer server = TestServer.start(contexts);

    @TempDir
    Path webappDir;
    private int deploys;

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void redeployingAnApplicationOnTheMemoryStoreLeavesNoEarlierDeployLoaded() throws Exception {
        WeakReference<ClassLoader> first = deployServeAndUndeploy();
        deployServeAndUndeploy();

        ClassLoaders.awaitCollected(first);
    }

    @Test
    void redeployingAnApplicationOnRedisLeavesNoEarlierDeployLoaded() throws Exception {
        try (RedisServer redis = RedisServer.start()) {
            // Failing closed, with time to spare on a slow machine: every answer is Redis' decision, none a fallback's.
            WeakReference<ClassLoader> first = deployServeAndUndeploy("store", redis.url(), "failure-mode", "FAIL_CLOSED",
                    "redis-timeout", "2s");
            deployServeAndUndeploy("store", redis.url(), "failure-mode", "FAIL_CLOSED", "redis-timeout", "2s");

            assertThat(redis.decisionCalls()).as("decided on Redis").isPositive();
            ClassLoaders.awaitCollected(first);
        }
    }

    private WeakReference<ClassLoader> deployServeAndUndeploy(String... params) throws Exception {
        WebXml.writeWithFilter(webappDir, params);
        WebAppContext webapp = new WebAppContext();
        webapp.setContextPath(TestServer.CONTEXT);
        webapp.setBaseResourceAsPath(webappDir);
        webapp.setExtraClasspath(String.join(",", testClassPath()));
        contexts.addHandler(webapp);
        webapp.start();
        assertThat(webapp.getUnavailableException()).isNull();
        ClassLoader application = webapp.getClassLoader();
        assertThat(application.loadClass(RateLimitFilter.class.getName()).getClassLoader())
                .as("the filter's classes are the application's own").isSameAs(application);

        // A client of its own per deploy: on Redis, the quota outlives the application.
        String apiKey = "sk-free-deploy-" + ++deploys;
        // 30 requests of a bucket of 10 refilled by 1 a second: some refused however slow the machine.
        assertThat(server.statuses(30, 3, "GET", "/api/scan", "X-API-Key", apiKey)).containsOnly(200, 429).contains(200, 429);
        assertThat(server.get("/api/scan", "X-API-Key", "k".repeat(257)).statusCode()).isEqualTo(400);

        contexts.removeHandler(webapp);
        webapp.stop();
        webapp.destroy();
        server.closeConnections();
        return new WeakReference<>(application);
    }

    /** This test's class path (Surefire's, whose own java.class.path is a jar pointing to it): the WAR's WEB-INF/lib. */
    private static List<String> testClassPath() {
        String path = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        return List.of(path.split(File.pathSeparator)).stream().filter(entry -> !entry.isBlank()).toList();
    }
}
