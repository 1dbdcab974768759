package dev.ratelimit.servlet;

import jakarta.servlet.DispatcherType;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.webapp.WebAppContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;

import static org.assertj.core.api.Assertions.assertThat;

/** An init-param that is accepted also takes effect: each one here changes what a request gets. */
class InitParamsEffectTest {
    private TestServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** A filter declared with {@code params} (name/value pairs) in front of the test app, as web.xml would declare it. */
    private void start(String... params) {
        server = TestServer.start(context -> {
            FilterHolder holder = new FilterHolder(RateLimitFilter.class);
            holder.setName("rateLimit");
            for (int i = 0; i < params.length; i += 2) {
                holder.setInitParameter(params[i], params[i + 1]);
            }
            context.addFilter(holder, "/*", EnumSet.of(DispatcherType.REQUEST));
        });
    }

    @Test
    void shadowTrueDecidesButNeverRefuses() {
        start("config", "classpath:configs/webxml-limits.json", "shadow", " TRUE ");

        // 3 scans an hour for free: the fourth and fifth are over, and pass all the same.
        assertThat(server.statuses(5, 1, "GET", "/api/scan")).containsOnly(200);
        assertThat(server.get("/api/scan").headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
    }

    @Test
    void shadowFalseRefusesAsIfTheParamWereLeftOut() {
        start("config", "classpath:configs/webxml-limits.json", "shadow", "false");

        assertThat(server.statuses(4, 1, "GET", "/api/scan")).containsExactly(200, 200, 200, 429);
    }

    @Test
    void maxKeysPerLimitCapsTheInMemoryStore() {
        // A cap of one key: a second client pushes the first out, which then starts afresh.
        start("config", "classpath:configs/webxml-limits.json", "max-keys-per-limit", "1", "trusted-proxies", "127.0.0.0/8");

        assertThat(server.statuses(4, 1, "GET", "/api/scan", "X-Forwarded-For", "203.0.113.1")).containsExactly(200, 200, 200, 429);
        assertThat(server.get("/api/scan", "X-Forwarded-For", "203.0.113.2").statusCode()).isEqualTo(200);
        assertThat(server.get("/api/scan", "X-Forwarded-For", "203.0.113.1").statusCode()).isEqualTo(200);
    }

    @Test
    void aRedisStoreUrlIsTheStoreDecidingNotASilentInMemoryStore() {
        // Nothing listens on port 1: the Redis store cannot decide, and fails closed as told.
        start("store", "redis://127.0.0.1:1", "failure-mode", "FAIL_CLOSED", "redis-timeout", "50ms");

        assertThat(server.get("/api/scan").statusCode()).isEqualTo(503);
    }

    @Test
    void aConfigOnTheClasspathIsFoundInTheWebApplicationsOwnClasses(@TempDir Path webappDir) throws IOException {
        // The library outside the application (a container's shared lib, here the test class path), the
        // configuration only in WEB-INF/classes: only the application's class loader sees it.
        Path classes = Files.createDirectories(webappDir.resolve("WEB-INF/classes"));
        Files.writeString(classes.resolve("app-only-limits.json"), """
                {"endpoints": [{"method": "GET", "path": "/api/scan", "name": "scan"}],
                 "tiers": {"free": {"scan": {"algorithm": "fixed_window", "limit": 2, "window": "1h"}}}}
                """);
        WebXml.writeWithFilter(webappDir, "config", "classpath:app-only-limits.json");
        WebAppContext webapp = new WebAppContext();
        webapp.setContextPath(TestServer.CONTEXT);
        webapp.setBaseResourceAsPath(webappDir);
        webapp.setParentLoaderPriority(true);
        server = TestServer.start(webapp);

        assertThat(webapp.getUnavailableException()).isNull();
        assertThat(server.statuses(3, 1, "GET", "/api/scan")).containsExactly(200, 200, 429);
    }
}
