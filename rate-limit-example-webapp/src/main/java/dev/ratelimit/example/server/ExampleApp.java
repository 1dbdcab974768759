package dev.ratelimit.example.server;

import dev.ratelimit.Clock;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimitStore;
import dev.ratelimit.config.RateLimitConfig;
import dev.ratelimit.example.api.ApiServlet;
import dev.ratelimit.example.api.HealthServlet;
import dev.ratelimit.servlet.RateLimitFilter;
import dev.ratelimit.store.memory.MemoryStore;
import jakarta.servlet.DispatcherType;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;

import java.util.EnumSet;

/**
 * The executable example, put together in one place: the configuration, the store, the listener,
 * the filter built in code, and the servlets. Whatever else the app serves (metrics, a dashboard)
 * is added here, next to the parts it reports on.
 *
 * <p>It owns the store and closes it in {@link #close()}, after the server has stopped.
 */
final class ExampleApp implements AutoCloseable {
    private final ExampleOptions options;
    private final RateLimitStore store;
    private final String storeDescription;
    private final RateLimitFilter filter;

    private ExampleApp(ExampleOptions options, RateLimitStore store, String storeDescription, RateLimitFilter filter) {
        this.options = options;
        this.store = store;
        this.storeDescription = storeDescription;
        this.filter = filter;
    }

    /**
     * Builds the store ({@code options.redisUrl()}, else in memory on {@code clock}) and the filter.
     *
     * @throws OptionException when the store cannot be built from the settings
     */
    static ExampleApp create(ExampleOptions options, Clock clock) throws OptionException {
        RateLimitStore store = MemoryStore.builder().clock(clock).build();
        String description = "in memory (this instance only; set REDIS_URL to share limits between instances)";
        RateLimitListener listener = RateLimitListener.NONE;
        try {
            RateLimitFilter filter = RateLimitFilter.builder()
                    .config(options.config())
                    .store(store)
                    .clock(clock)
                    .listener(listener)
                    .failureMode(options.failureMode())
                    .trustedProxies(options.trustedProxies())
                    .build();
            return new ExampleApp(options, store, description, filter);
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
    }

    /** The servlets under {@code /}, with the filter on {@code /api/*}. */
    ServletContextHandler context() {
        ServletContextHandler context = new ServletContextHandler("/");
        context.addServlet(ApiServlet.class, "/api/*").setAsyncSupported(true);
        context.addServlet(HealthServlet.class, "/health");
        FilterHolder rateLimit = new FilterHolder(filter);
        rateLimit.setName("rateLimit");
        rateLimit.setAsyncSupported(true);
        context.addFilter(rateLimit, "/api/*", EnumSet.of(DispatcherType.REQUEST));
        return context;
    }

    ExampleOptions options() {
        return options;
    }

    RateLimitConfig config() {
        return options.config();
    }

    /** The store in use, for the start-up log (never a password). */
    String storeDescription() {
        return storeDescription;
    }

    @Override
    public void close() {
        store.close();
    }
}
