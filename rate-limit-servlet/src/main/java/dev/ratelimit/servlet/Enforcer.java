package dev.ratelimit.servlet;

import dev.ratelimit.Clock;
import dev.ratelimit.Decision;
import dev.ratelimit.DecisionEvent;
import dev.ratelimit.InvalidConfigurationException;
import dev.ratelimit.Limit;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import dev.ratelimit.Undecided;
import dev.ratelimit.Verdict;
import dev.ratelimit.config.EndpointRule;
import dev.ratelimit.config.RateLimitConfig;
import dev.ratelimit.servlet.client.ClientIdResolver;
import dev.ratelimit.servlet.client.InvalidClientException;
import dev.ratelimit.servlet.client.TierResolver;
import dev.ratelimit.servlet.headers.HeaderStyle;
import dev.ratelimit.servlet.headers.LimitHeaders;
import dev.ratelimit.servlet.problem.Problem;
import dev.ratelimit.servlet.problem.ProblemWriter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.slf4j.Logger;

import java.io.IOException;
import java.lang.reflect.UndeclaredThrowableException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The filter's decision for one request: allowlisted or unlimited (pass on, no headers), a bad
 * client identity (400), or a store decision written as headers and, when enforced, a 429 or 503.
 *
 * <p>Every limit is bound to the store once, here: one {@link RateLimiter} per tier and endpoint, and
 * one for unmatched requests. A request then costs a path normalization, a rule scan, the resolvers,
 * one store call and the headers.
 */
final class Enforcer {
    /**
     * One enforced endpoint of one tier; {@code fallbackHeaders} describe the limit the store's local
     * fallback enforces meanwhile (the same as {@code headers} for a store without one).
     */
    private record Binding(String endpoint, RateLimiter limiter, LimitHeaders headers, LimitHeaders fallbackHeaders, long cost,
                           boolean shadow) {
        static Binding of(String endpoint, RateLimiter limiter, LimitHeaders headers, long cost, boolean shadow) {
            Limit share = limiter.limitFor(Source.LOCAL_FALLBACK);
            LimitHeaders fallbackHeaders = share.equals(limiter.limit()) ? headers : LimitHeaders.of(share);
            return new Binding(endpoint, limiter, headers, fallbackHeaders, cost, shadow);
        }

        /** The header fields of the limit {@code decision} was made by. */
        LimitHeaders headersOf(Decision decision) {
            return decision.source() == Source.LOCAL_FALLBACK ? fallbackHeaders : headers;
        }
    }

    /** How early {@code X-RateLimit-Reset} may be after a slow decision, at most (0.5 s): see {@link #resetBase}. */
    static final long RESET_SLACK_MICROS = 500_000;

    private final Endpoints endpoints;
    private final AllowlistMatcher allowlist;
    private final ClientIdResolver clients;
    private final Ipv6Networks ipv6Networks;
    private final TierResolver tiers;
    private final String defaultTier;
    private final Map<String, Binding[]> byTier = new HashMap<>();
    /** Index of the unmatched binding in each tier's array, or -1 when unmatched requests are unlimited. */
    private final int unmatched;
    private final Clock clock;
    private final RateLimitListener listener;
    private final HeaderStyle headerStyle;
    private final boolean shadow;
    private final ProblemWriter problems = new ProblemWriter();
    /**
     * How close to refusing the limit is whose headers this request's response shows (its remaining
     * count, or a rank below every enforced one), set by whichever instance wrote them.
     */
    static final String SHOWN_RANK = Enforcer.class.getName() + ".shownRank";
    /** The rank of a shadowed decision's headers: any enforced decision's replace them. */
    private static final long SHADOWED_RANK = Long.MAX_VALUE;
    /** The rank of an enforced decision without numbers (a failure mode's): any with numbers replace them. */
    private static final long NO_NUMBERS_RANK = Long.MAX_VALUE - 1;

    /** One throttle per kind of warning: a listener failing on every request must not hide a broken tier resolver. */
    private final ThrottledLog listenerLog;
    private final ThrottledLog tierLog;

    /** @param logger the filter's logger */
    Enforcer(Settings settings, Logger logger) {
        RateLimitConfig config = settings.config();
        this.endpoints = new Endpoints(config.endpoints());
        requireRules(config);
        this.allowlist = new AllowlistMatcher(config.allowlist());
        this.clients = settings.clients();
        this.ipv6Networks = settings.ipv6Networks();
        this.tiers = settings.tiers();
        this.defaultTier = config.defaultTier();
        this.clock = settings.clock();
        this.listener = settings.listener();
        this.headerStyle = settings.headerStyle();
        this.shadow = settings.shadow() || config.shadow();
        this.listenerLog = new ThrottledLog(logger, settings.clock());
        this.tierLog = new ThrottledLog(logger, settings.clock());
        this.unmatched = config.unmatched().isPresent() ? endpoints.size() : -1;
        Binding unmatchedBinding = config.unmatched()
                .map(limit -> Binding.of(limit.name(), settings.store().limiter(limit), LimitHeaders.of(limit), 1, false))
                .orElse(null);
        for (var tier : config.tiers().entrySet()) {
            Map<String, RateLimiter> limiters = new LinkedHashMap<>();
            Map<String, LimitHeaders> headers = new HashMap<>();
            for (Limit limit : tier.getValue().values()) {
                limiters.put(limit.name(), settings.store().limiter(limit));
                headers.put(limit.name(), LimitHeaders.of(limit));
            }
            Binding[] bindings = new Binding[endpoints.size() + (unmatched < 0 ? 0 : 1)];
            for (int i = 0; i < endpoints.size(); i++) {
                EndpointRule rule = endpoints.rule(i);
                bindings[i] = Binding.of(rule.name(), limiters.get(rule.name()), headers.get(rule.name()), rule.cost(), rule.shadow());
            }
            if (unmatched >= 0) {
                bindings[unmatched] = unmatchedBinding;
            }
            byTier.put(tier.getKey(), bindings);
            if (listener != RateLimitListener.NONE) {
                for (Binding binding : bindings) {
                    limitBound(tier.getKey(), binding);
                }
            }
        }
    }

    /** Tells the listener of a binding before any request (so that its meters exist at zero); a listener that throws changes nothing. */
    private void limitBound(String tier, Binding binding) {
        try {
            listener.onLimitBound(tier, binding.endpoint(), binding.limiter().limit());
        } catch (Exception | LinkageError e) {
            listenerLog.warn("RateLimitListener.onLimitBound threw " + ThrottledLog.describe(e) + "; ignored");
        }
    }

    /**
     * The checks the filter makes of {@code config} beyond the configuration's own (rule paths
     * normalized, a rule for every limit, allowlist entries), so that a configuration file's errors
     * can name the file: throws the first failure.
     */
    static void check(RateLimitConfig config) {
        new Endpoints(config.endpoints());
        requireRules(config);
        new AllowlistMatcher(config.allowlist());
        requireReachableRules(config);
    }

    /** Refuses a rule (or the unmatched requests' limit) that an allowlisted path covers whole: its limit would never apply. */
    private static void requireReachableRules(RateLimitConfig config) {
        List<String> paths = config.allowlist().paths();
        for (int i = 0; i < paths.size(); i++) {
            EndpointRule allowed = EndpointRule.of("*", paths.get(i), "allowlist");
            if (config.unmatched().isPresent() && allowed.path().equals("/**")) {
                throw new InvalidConfigurationException("allowlist.paths[" + i + "]", "\"/**\" exempts every request, so the limit of "
                        + "unmatched requests would never apply; narrow the path, or remove that limit");
            }
            for (int j = 0; j < config.endpoints().size(); j++) {
                EndpointRule rule = config.endpoints().get(j);
                if (Endpoints.covers(allowed, rule)) {
                    throw new InvalidConfigurationException("allowlist.paths[" + i + "]", "\"" + allowed.path() + "\" exempts every "
                            + "request of endpoints[" + j + "] (" + rule.method() + " " + rule.path() + "), so its limit would never "
                            + "apply; narrow the path, or remove the rule (shadow mode measures a limit without enforcing it)");
                }
            }
        }
    }

    /** Refuses a limit that no endpoint rule names: no request could ever reach it. */
    private static void requireRules(RateLimitConfig config) {
        for (String endpoint : config.tiers().get(config.defaultTier()).keySet()) {
            if (config.endpoints().stream().noneMatch(rule -> rule.name().equals(endpoint))) {
                throw new InvalidConfigurationException("tiers." + config.defaultTier() + "." + endpoint, "no endpoints[] rule is named \""
                        + endpoint + "\", so this limit would never apply; add a rule with \"name\": \"" + endpoint + "\" or remove the limit");
            }
        }
    }

    /**
     * Decides {@code request}: writes the rate-limit headers, or the whole answer when the request is
     * refused. A request that reaches the store, or whose client id is unusable, is marked with the
     * attribute {@code counted} (the filter marks one it failed to decide too), and
     * the filter lets any later pass of it (the same filter mapped twice, a forward, include, async
     * or error dispatch) through uncounted;
     * an allowlisted or unlimited request is not marked, so a forward of it to a limited path counts
     * if that dispatcher type is enabled.
     *
     * @return true to pass the request on
     */
    boolean admit(HttpServletRequest request, HttpServletResponse response, String counted) throws IOException {
        String path = Endpoints.pathOf(request);
        if (allowlist.allowsPath(path)) {
            return true;
        }
        int rule = endpoints.match(request.getMethod(), path);
        if (rule < 0 && unmatched < 0) {
            return true;
        }
        if (isCorsPreflight(request) && (rule < 0 || !"OPTIONS".equals(endpoints.rule(rule).method()))) {
            // A browser's own question before a cross-origin request, with no credentials and no API key:
            // counting it would spend the address's default-tier quota and refusing it the real request.
            // Anyone can send those headers, so a rule written for OPTIONS still counts it.
            return true;
        }
        String clientId;
        try {
            clientId = clients.resolve(request);
        } catch (InvalidClientException e) {
            // Marked like a counted request: a later pass of it (a forward, an error page) is not undecided again.
            request.setAttribute(counted, Boolean.TRUE);
            if (shadow || rule >= 0 && endpoints.rule(rule).shadow()) {
                undecided(Undecided.INVALID_CLIENT, true);
                return true; // shadow mode never refuses: a malformed key passes, counted against no one
            }
            undecided(Undecided.INVALID_CLIENT, false);
            if (request.getAttribute(SHOWN_RANK) != null) {
                LimitHeaders.clear(response::setHeader); // another instance's numbers do not describe this refusal
            }
            problems.send(request, response, Problem.invalidClient(e.error(), e.detail()));
            return false;
        } catch (Exception e) {
            throw unchecked(e);
        }
        if (clientId == null || clientId.isEmpty()) {
            throw new BrokenExtension("ClientIdResolver " + clients.getClass().getName() + " returned "
                    + (clientId == null ? "null" : "an empty id") + "; return an id such as ip:<address> (ClientIdResolver.ip), "
                    + "or throw InvalidClientException for a 400");
        }
        if (allowlist.allowsClient(clientId)) {
            return true;
        }
        String tier;
        try {
            tier = tiers.tier(clientId);
        } catch (Exception e) {
            throw unchecked(e);
        }
        Binding[] bindings = tier == null ? null : byTier.get(tier);
        if (bindings == null) {
            tierLog.warn("TierResolver " + tiers.getClass().getName() + " returned a tier the configuration does not define; "
                    + "using the default tier " + defaultTier);
            tier = defaultTier;
            bindings = byTier.get(defaultTier);
        }
        Binding binding = bindings[rule < 0 ? unmatched : rule];
        request.setAttribute(counted, Boolean.TRUE);
        // Read before and after the store decides: its reset times are relative to its own reading,
        // somewhere between the two.
        long before = clock.nowMicros();
        Decision decision;
        try {
            decision = binding.limiter().tryAcquire(ipv6Networks.countedId(clientId), binding.cost());
        } catch (Exception e) {
            throw unchecked(e);
        }
        if (decision == null || decision.verdict() == null || decision.source() == null || decision.policy() == null) {
            // A custom store's bug: undecided, never reported as a decision as well.
            throw new IllegalStateException(binding.limiter().getClass().getName() + " returned "
                    + (decision == null ? "no decision" : "a decision without a verdict, source or policy"));
        }
        long after = clock.nowMicros();
        boolean shadowed = shadow || binding.shadow();
        if (listener != RateLimitListener.NONE) {
            notifyListener(new DecisionEvent(tier, binding.endpoint(), binding.limiter().limit(), decision, shadowed,
                    after - before));
        }
        return answer(request, response, tier, binding, decision, resetBase(before, after), shadowed);
    }

    /**
     * The reading that {@code X-RateLimit-Reset} adds the decision's reset time to. The store read its
     * clock (or Redis its {@code TIME}) somewhere between {@code before} and {@code after}, nearly always
     * right after {@code before}: a quick decision uses {@code before}, which keeps an epoch-aligned
     * window's end exact (adding the reset to a reading even a microsecond later than the store's would
     * push it into the next second). A decision that took longer than {@link #RESET_SLACK_MICROS} most
     * likely waited before the store read its clock (queued behind a Redis connection, a pool, a
     * reconnect), so the reading is {@code after} less that slack: early by at most 0.5 s however long it
     * waited, where {@code before} would be early by the whole wait. The cost: an answer that took over
     * 0.5 s to come back after the store decided makes the header late by that much.
     */
    static long resetBase(long before, long after) {
        return Math.max(before, after - RESET_SLACK_MICROS);
    }

    /**
     * {@code e}, thrown by a custom resolver or store, as an unchecked exception, which the filter's
     * failure mode handles: code in Kotlin or Groovy throws checked exceptions without declaring them,
     * and an {@code IOException} left as it is would leave {@code doFilter} as the container's 500.
     */
    private static RuntimeException unchecked(Exception e) {
        return e instanceof RuntimeException unchecked ? unchecked : new UndeclaredThrowableException(e);
    }

    private boolean answer(HttpServletRequest request, HttpServletResponse response, String tier, Binding binding,
                           Decision decision, long now, boolean shadowed) throws IOException {
        long retryAfter = shadowed ? 0 : LimitHeaders.retryAfterSeconds(decision);
        if (!shadowed && decision.verdict() == Verdict.STORE_UNAVAILABLE) {
            retryAfter = Math.max(1, retryAfter);
        }
        boolean passes = decision.allowed() || shadowed;
        // Two filter instances on one request (a per-address limit around a per-endpoint one): the
        // headers describe the limit that bites first. The refusing one writes them; otherwise the
        // lowest rank does (on a tie, the outer one): an enforced limit's remaining count, below any
        // enforced decision without numbers (an outage's), below any shadowed one.
        boolean numbers = decision.hasNumbers();
        long rank = shadowed ? SHADOWED_RANK : numbers ? Math.min(decision.remaining(), NO_NUMBERS_RANK - 1) : NO_NUMBERS_RANK;
        Object shown = request.getAttribute(SHOWN_RANK);
        if (!passes || !(shown instanceof Long earlier) || rank < earlier) {
            if (shown != null) {
                LimitHeaders.clear(response::setHeader); // an earlier instance's, which no longer apply
            }
            binding.headersOf(decision).write(response::setHeader, headerStyle, tier, decision, now, retryAfter);
            request.setAttribute(SHOWN_RANK, rank);
        }
        if (passes) {
            return true;
        }
        String policy = binding.headersOf(decision).itemName(decision);
        Problem problem = switch (decision.verdict()) {
            case REJECTED -> Problem.rateLimited(tier, binding.endpoint(), policy, decision.limit(), retryAfter);
            case COST_EXCEEDS_LIMIT -> Problem.costExceedsLimit(tier, binding.endpoint(), policy, decision.limit(), binding.cost());
            default -> Problem.unavailable(tier, binding.endpoint(), retryAfter);
        };
        problems.send(request, response, problem);
        return false;
    }

    /** An OPTIONS request with {@code Origin} and {@code Access-Control-Request-Method} (the Fetch standard's preflight). */
    private static boolean isCorsPreflight(HttpServletRequest request) {
        return "OPTIONS".equals(request.getMethod()) && request.getHeader("Origin") != null
                && request.getHeader("Access-Control-Request-Method") != null;
    }

    private void notifyListener(DecisionEvent event) {
        try {
            listener.onDecision(event);
        } catch (Exception | LinkageError e) {
            // A LinkageError too: a missing or mismatched metrics library must not turn requests into 500s.
            // Any Exception, not only a RuntimeException: a listener in Kotlin or Groovy throws checked
            // ones without declaring them, and one escaping here would be the container's 500.
            listenerLog.warn("RateLimitListener.onDecision threw " + ThrottledLog.describe(e) + "; ignored");
        }
    }

    /** Tells the listener that a request it limits went undecided; a listener that throws changes nothing. */
    void undecided(Undecided reason, boolean passedOn) {
        if (listener == RateLimitListener.NONE) {
            return;
        }
        try {
            listener.onUndecided(reason, passedOn);
        } catch (Exception | LinkageError e) {
            listenerLog.warn("RateLimitListener.onUndecided threw " + ThrottledLog.describe(e) + "; ignored");
        }
    }

    /** Whether shadow mode is on for every endpoint (the filter's or the configuration's {@code shadow}). */
    boolean shadowsEverything() {
        return shadow;
    }

    /**
     * Whether {@code request} is in shadow mode: everywhere, or its endpoint rule is. Asked after a
     * failure, so a failure to tell counts as not shadowed.
     */
    boolean shadows(HttpServletRequest request) {
        if (shadow) {
            return true;
        }
        try {
            int rule = endpoints.match(request.getMethod(), Endpoints.pathOf(request));
            return rule >= 0 && endpoints.rule(rule).shadow();
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Answers 503 when something failed unexpectedly and the failure mode is fail-closed. */
    void unavailable(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (request.getAttribute(SHOWN_RANK) != null) {
            LimitHeaders.clear(response::setHeader); // another instance's numbers do not describe this refusal
        }
        response.setHeader("Retry-After", "1");
        problems.send(request, response, Problem.unavailable(null, null, 1));
    }
}
