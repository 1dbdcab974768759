package dev.ratelimit.example.server;

import dev.ratelimit.Clock;
import dev.ratelimit.FailureMode;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimitStore;
import dev.ratelimit.StoreHealth;
import dev.ratelimit.config.RateLimitConfig;
import dev.ratelimit.example.api.ApiServlet;
import dev.ratelimit.example.api.HealthServlet;
import dev.ratelimit.example.api.NotFoundServlet;
import dev.ratelimit.example.observe.DashboardServlet;
import dev.ratelimit.example.observe.MetricsServlet;
import dev.ratelimit.micrometer.MicrometerListener;
import dev.ratelimit.servlet.RateLimitFilter;
import dev.ratelimit.store.memory.MemoryStore;
import dev.ratelimit.store.redis.RedisStore;
import dev.ratelimit.store.redis.RedisUrlMask;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.servlet.DispatcherType;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;

import java.util.EnumSet;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The executable example, put together in one place: the configuration, the store, the listener,
 * the filter built in code, and the servlets. One {@link MicrometerListener} hears both the store
 * (store calls, errors, health) and the filter (decisions); its registry is served at
 * {@code /metrics} and drawn by {@code /dashboard}, both outside the filter's {@code /api/*}.
 *
 * <p>It owns the store and closes it in {@link #close()}, after the server has stopped.
 */
final class ExampleApp implements AutoCloseable {
    private final ExampleOptions options;
    private final RateLimitStore store;
    private final String storeDescription;
    private final Optional<String> storeWarning;
    private final RateLimitFilter filter;
    private final PrometheusMeterRegistry metrics;

    private ExampleApp(ExampleOptions options, RateLimitStore store, String storeDescription, Optional<String> storeWarning,
                       RateLimitFilter filter, PrometheusMeterRegistry metrics) {
        this.options = options;
        this.store = store;
        this.storeDescription = storeDescription;
        this.storeWarning = storeWarning;
        this.filter = filter;
        this.metrics = metrics;
    }

    /** How often reading the tracked-keys gauge may sweep the in-memory store. */
    private static final long SWEEP_EVERY_MICROS = 5_000_000;

    /**
     * Builds the store ({@code options.redisUrl()}, decisions on Redis' clock; else in memory on
     * {@code clock}) and the filter. The Redis store's connection is checked once: an unreachable
     * Redis does not stop start-up (a warning says so), its failure mode decides until it answers.
     */
    static ExampleApp create(ExampleOptions options, Clock clock) {
        PrometheusMeterRegistry metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        RateLimitListener listener;
        RateLimitStore store;
        String description;
        Optional<String> warning = Optional.empty();
        if (options.redisUrl().isPresent()) {
            // No tracked-keys gauge on Redis: counting its keys would take a scan, and they expire by themselves.
            listener = MicrometerListener.of(metrics);
            RedisStore.Builder redis = RedisStore.builder().url(options.redisUrl().get()).clock(clock).listener(listener);
            options.failureMode().ifPresent(redis::failureMode);
            options.fallbackShare().ifPresent(redis::fallbackShare);
            options.redisTimeout().ifPresent(t -> redis.connectTimeout(t).readTimeout(t));
            options.redisKeyPrefix().ifPresent(redis::keyPrefix);
            options.clientKeySecret().ifPresent(redis::clientKeySecret);
            options.redisPasswordFile().ifPresent(redis::passwordFile);
            RedisStore redisStore = redis.build();
            store = redisStore;
            FailureMode mode = options.failureMode().orElse(FailureMode.LOCAL_FALLBACK);
            warning = checkConnection(redisStore, mode);
            description = "Redis " + RedisUrlMask.mask(options.redisUrl().get()) + ", shared by every instance using it; "
                    + "while it is down: " + mode + (mode == FailureMode.LOCAL_FALLBACK
                    ? " (each instance allows " + options.fallbackShare().orElse(1.0) + " of each limit)" : "")
                    + options.redisKeyPrefix().map(prefix -> "; keys under " + prefix).orElse("")
                    + (options.clientKeySecret().isPresent() ? "; client ids hashed with the secret (HMAC-SHA-256)" : "")
                    + options.redisPasswordFile().map(file -> "; password read from " + file + " at each login").orElse("")
                    + (warning.isEmpty() ? "; connection check at start-up: passed" : "; connection check at start-up: FAILED (see the warning)");
        } else {
            MemoryStore.Builder memoryBuilder = MemoryStore.builder().clock(clock);
            options.maxKeysPerLimit().ifPresent(memoryBuilder::maxKeysPerLimit);
            MemoryStore memory = memoryBuilder.build();
            // Swept when read (a scrape of /metrics), at most every 5 s (the dashboard polls every second,
            // and a sweep visits every slot): otherwise clients whose state is fresh again stay counted
            // until new keys sweep them, and the gauge never falls once traffic stops.
            AtomicLong nextSweep = new AtomicLong(Long.MIN_VALUE);
            listener = MicrometerListener.of(metrics, () -> {
                long now = clock.nowMicros();
                long due = nextSweep.get();
                if (now >= due && nextSweep.compareAndSet(due, now + SWEEP_EVERY_MICROS)) {
                    memory.cleanUp();
                }
                return memory.trackedKeys();
            });
            // Clients pushed out at the cap while their state still counted: a growing count says the cap is too small.
            FunctionCounter.builder("ratelimit.evictions", memory, MemoryStore::evictions)
                    .description("Clients evicted from the in-memory store at its cap while their state still counted")
                    .register(metrics);
            store = memory;
            description = "in memory (this instance only; set REDIS_URL to share limits between instances)"
                    + options.maxKeysPerLimit().map(n -> "; at most " + n + " clients per limit").orElse("");
        }
        try {
            RateLimitFilter filter = RateLimitFilter.builder()
                    .config(options.config())
                    .store(store)
                    .clock(clock)
                    .listener(listener)
                    .failureMode(options.failureMode().orElse(FailureMode.FAIL_OPEN))
                    .trustedProxies(options.trustedProxies())
                    .build();
            if (!options.filterOn()) {
                description = "OFF: no rate-limit filter is installed (RATE_LIMIT_FILTER=off), nothing is limited; "
                        + "it would use " + description;
            }
            return new ExampleApp(options, store, description, warning, filter, metrics);
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
    }

    /** Empty when the store answers; otherwise why not, and what decides until it does. */
    private static Optional<String> checkConnection(RedisStore store, FailureMode mode) {
        try {
            store.checkConnection();
            return Optional.empty();
        } catch (IllegalStateException e) {
            return Optional.of(e.getMessage() + "; starting anyway: until Redis answers, each decision follows failure mode " + mode);
        }
    }

    /**
     * The servlets under {@code /} (anything unserved a 404), with the filter on {@code /api/*} unless
     * the options turn it off.
     */
    ServletContextHandler context() {
        ServletContextHandler context = new ServletContextHandler("/");
        context.addServlet(ApiServlet.class, "/api/*").setAsyncSupported(true);
        context.addServlet(new ServletHolder("health", new HealthServlet(this::storeHealth)), "/health");
        context.addServlet(new ServletHolder("metrics", new MetricsServlet(metrics)), "/metrics");
        context.addServlet(new ServletHolder("dashboard", new DashboardServlet()), "/dashboard/*");
        context.addServlet(NotFoundServlet.class, "/");
        if (!options.filterOn()) {
            return context;
        }
        FilterHolder rateLimit = new FilterHolder(filter);
        rateLimit.setName("rateLimit");
        rateLimit.setAsyncSupported(true);
        context.addFilter(rateLimit, "/api/*", EnumSet.of(DispatcherType.REQUEST));
        return context;
    }

    ExampleOptions options() {
        return options;
    }

    /** The store's health: a Redis store's breakers; the in-memory store is always up. */
    private StoreHealth storeHealth() {
        return store instanceof RedisStore redis ? redis.health() : StoreHealth.UP;
    }

    RateLimitConfig config() {
        return options.config();
    }

    /** Why the Redis store failed its connection check at start-up, and what decides meanwhile; empty when it passed or the store is in memory. */
    Optional<String> storeWarning() {
        return storeWarning;
    }

    /** The store in use, for the start-up log (never a password). */
    String storeDescription() {
        return storeDescription;
    }

    @Override
    public void close() {
        store.close();
        metrics.close();
    }
}
