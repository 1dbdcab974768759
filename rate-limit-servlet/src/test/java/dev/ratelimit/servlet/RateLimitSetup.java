package dev.ratelimit.servlet;

import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimitStore;
import dev.ratelimit.config.RateLimitConfig;
import dev.ratelimit.servlet.headers.HeaderStyle;
import dev.ratelimit.store.memory.MemoryStore;
import dev.ratelimit.store.redis.RedisStore;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterRegistration;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import jakarta.servlet.annotation.WebListener;

import java.util.EnumSet;

/**
 * The README's "Register it in code" listener, word for word between the markers
 * ({@code RegistrationTest} deploys it in a web application and checks that the README shows exactly this).
 */
// README:begin
@WebListener   // or <listener> in web.xml (Spring Boot: see below); rate-limits.json (see Configuration) on the classpath
public class RateLimitSetup implements ServletContextListener {
    private final RateLimitListener metrics = RateLimitListener.NONE;   // or a MicrometerListener, see Observability
    private RateLimitStore store;

    @Override
    public void contextInitialized(ServletContextEvent event) {
        String redisUrl = System.getenv("REDIS_URL");
        store = redisUrl == null ? MemoryStore.builder().build() : RedisStore.builder().url(redisUrl).build();
        RateLimitFilter filter = RateLimitFilter.builder()
                .config(RateLimitConfig.fromClasspath("rate-limits.json"))
                .store(store)                                                          // default: a MemoryStore
                .trustedProxies("10.0.0.0/8")
                .headerStyle(HeaderStyle.BOTH)
                .listener(metrics)                                                     // default: none
                .build();
        FilterRegistration.Dynamic rateLimit = event.getServletContext().addFilter("rateLimit", filter);
        rateLimit.setAsyncSupported(true);   // as <async-supported> in web.xml: else startAsync() behind it fails
        rateLimit.addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), false, "/*");
    }

    @Override
    public void contextDestroyed(ServletContextEvent event) {
        store.close();   // a store you pass is yours to close
    }
}
// README:end
