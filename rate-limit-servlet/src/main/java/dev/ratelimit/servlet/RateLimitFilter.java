package dev.ratelimit.servlet;

import dev.ratelimit.FailureMode;
import dev.ratelimit.Undecided;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.lang.reflect.UndeclaredThrowableException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Per-client, per-tier, per-endpoint rate limits for any Jakarta Servlet 6 application.
 *
 * <p>For each request: find the endpoint (first matching rule of the configuration), find the client
 * ({@code apikey:<key>} or {@code ip:<address>}) and its tier, ask the store, then either pass the
 * request on with rate-limit headers, or answer it: 429 with {@code Retry-After} and an
 * {@code application/problem+json} body when over the limit, 400 for a malformed API key, 503 when the
 * store is down and fails closed. Allowlisted and unlimited requests pass untouched.
 *
 * <p>Declare it in {@code web.xml} (configured by init-params, see the README's "The servlet filter" section):
 * <pre>{@code
 * <filter>
 *   <filter-name>rateLimit</filter-name>
 *   <filter-class>dev.ratelimit.servlet.RateLimitFilter</filter-class>
 *   <async-supported>true</async-supported>
 *   <init-param><param-name>trusted-proxies</param-name><param-value>10.0.0.0/8</param-value></init-param>
 * </filter>
 * <filter-mapping><filter-name>rateLimit</filter-name><url-pattern>/*</url-pattern></filter-mapping>
 * }</pre>
 * or build it in code:
 * <pre>{@code
 * FilterRegistration.Dynamic rateLimit = servletContext.addFilter("rateLimit",
 *         RateLimitFilter.builder().trustedProxies("10.0.0.0/8").build());
 * rateLimit.setAsyncSupported(true);   // as <async-supported> above: else startAsync() behind it fails
 * rateLimit.addMappingForUrlPatterns(null, false, "/*");
 * }</pre>
 *
 * <p><b>Promises.</b> A request is counted at most once, whatever forwards, includes, async
 * re-dispatches or error pages follow. Nothing the filter does turns into a 500: bad client input is
 * a 400, a store outage follows the store's failure mode, and any other failure follows
 * {@link RateLimitFilterBuilder#failureMode}. Exceptions thrown by the application after the filter
 * passed the request on are the application's and propagate unchanged.
 */
public final class RateLimitFilter implements Filter {
    private static final String COUNTED = RateLimitFilter.class.getName() + ".counted@";
    /** Numbers the instances: identity hash codes are not unique, and two filters sharing a mark would count once between them. */
    private static final AtomicLong INSTANCES = new AtomicLong();

    private volatile Settings settings;
    private volatile Enforcer enforcer;
    private volatile boolean builtInCode;
    /** Marks a request this filter has counted; per instance, so that two filters in a chain both count. */
    private final String countedAttribute = COUNTED + INSTANCES.incrementAndGet();
    private final ThrottledLog log;

    /** For {@code web.xml}: the filter reads its init-params in {@link #init}. */
    public RateLimitFilter() {
        this.log = new ThrottledLog(LoggerFactory.getLogger(RateLimitFilter.class), dev.ratelimit.Clock.system());
    }

    RateLimitFilter(Settings settings) {
        this.log = new ThrottledLog(LoggerFactory.getLogger(RateLimitFilter.class), settings.clock());
        start(settings);
        this.builtInCode = true;
    }

    /**
     * A builder for a filter configured in code.
     *
     * @return a new builder, every option at its default
     */
    public static RateLimitFilterBuilder builder() {
        return new RateLimitFilterBuilder();
    }

    private void start(Settings s) {
        Enforcer e = new Enforcer(s, LoggerFactory.getLogger(RateLimitFilter.class));
        this.settings = s;
        this.enforcer = e;
    }

    /**
     * Reads the init-params of a filter declared in {@code web.xml}, or checks that a filter built in
     * code has none.
     *
     * @throws ServletException naming the init-param and its value when one is invalid
     */
    @Override
    public void init(FilterConfig filterConfig) throws ServletException {
        if (builtInCode) {
            if (filterConfig.getInitParameterNames().hasMoreElements()) {
                throw new ServletException("RateLimitFilter " + filterConfig.getFilterName() + " was built in code and takes no "
                        + "init-params, found " + Collections.list(filterConfig.getInitParameterNames()));
            }
        } else {
            Settings s = InitParams.read(filterConfig);
            Settings previous = settings;
            try {
                start(s);
            } catch (IllegalArgumentException e) {
                closeOwnedStore(s);
                throw new ServletException("RateLimitFilter " + ThrottledLog.clean(String.valueOf(filterConfig.getFilterName())) + ": "
                        + ThrottledLog.clean(String.valueOf(e.getMessage())), e);
            }
            // A container calls init() once per instance, but one that calls it again (a reload
            // without destroy()) must not leave the first store's connections open.
            if (previous != null) {
                closeOwnedStore(previous);
            }
        }
        warnOfContextPath(filterConfig);
    }

    /**
     * Paths are matched within the application, so a rule written with the context path in front
     * ({@code /myapp/api/scan} for an app at {@code /myapp}) would never match: said once, at start-up.
     * Not refused: an application may have such a path of its own ({@code /myapp/myapp/...}).
     */
    private void warnOfContextPath(FilterConfig filterConfig) {
        String context = filterConfig.getServletContext() == null ? null : filterConfig.getServletContext().getContextPath();
        if (context == null || context.isEmpty()) {
            return;
        }
        List<String> paths = new ArrayList<>();
        settings.config().endpoints().forEach(rule -> paths.add(rule.path()));
        paths.addAll(settings.config().allowlist().paths());
        for (String path : paths) {
            if (path.equals(context) || path.startsWith(context + "/")) {
                String within = path.equals(context) ? "/" : path.substring(context.length());
                LoggerFactory.getLogger(RateLimitFilter.class).warn("RateLimitFilter " + ThrottledLog.clean(filterConfig.getFilterName())
                        + ": path " + ThrottledLog.clean(path) + " starts with the context path " + ThrottledLog.clean(context)
                        + ", but paths are matched within the application: it matches " + ThrottledLog.clean(context + path)
                        + ", not " + ThrottledLog.clean(path) + "; write " + ThrottledLog.clean(within)
                        + " for that");
            }
        }
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
        Enforcer current = enforcer;
        Settings s = settings;
        if (current == null) {
            throw new ServletException("RateLimitFilter was not initialized: the container must call init() first");
        }
        // Every counted request is marked, even when only REQUEST dispatches count: a filter whose
        // mappings overlap (url-patterns /* and /api/*, or a url-pattern and a servlet-name) is in the
        // chain twice for one dispatch in Jetty, and must not count the request twice.
        if (!(req instanceof HttpServletRequest request) || !(res instanceof HttpServletResponse response)
                || !s.dispatcherTypes().contains(req.getDispatcherType()) || req.getAttribute(countedAttribute) != null) {
            chain.doFilter(req, res);
            return;
        }
        boolean passOn;
        try {
            passOn = current.admit(request, response, countedAttribute);
        } catch (RuntimeException | LinkageError e) {
            // Design: an unexpected failure (a custom resolver, a store that throws, a class missing from
            // the classpath) follows the failure mode; it never reaches the container as a 500. Logged
            // without its message, which might quote request data.
            // Shadow mode never refuses, not even then.
            FailureMode mode = s.failureMode();
            boolean shadowed = current.shadows(request);
            passOn = mode != FailureMode.FAIL_CLOSED || shadowed;
            // A checked exception a custom resolver or store threw undeclared comes wrapped: name it.
            Throwable cause = e instanceof UndeclaredThrowableException u && u.getCause() != null ? u.getCause() : e;
            log.warn("RateLimitFilter could not decide a request: " + ThrottledLog.describe(cause) + "; "
                    + (passOn ? "passed on unlimited" : "answered 503") + " (failure mode " + mode
                    + (shadowed ? ", shadow mode" : "") + ")");
            // Marked like a counted request: a later pass of it (a second mapping, a forward, an
            // async re-dispatch) is neither decided nor reported again.
            request.setAttribute(countedAttribute, Boolean.TRUE);
            current.undecided(Undecided.FAILURE, passOn);
            if (!passOn) {
                current.unavailable(request, response);
            }
        }
        if (passOn) {
            chain.doFilter(request, response);
        }
    }

    /** Closes the store if the filter created it (init-params, or a builder without a store). */
    @Override
    public void destroy() {
        Settings s = settings;
        if (s != null) {
            closeOwnedStore(s);
        }
    }

    private void closeOwnedStore(Settings s) {
        if (s.ownsStore()) {
            try {
                s.store().close();
            } catch (RuntimeException e) {
                log.warn("closing the rate-limit store failed: " + ThrottledLog.describe(e));
            }
        }
    }
}
