package dev.ratelimit.micrometer;

import dev.ratelimit.Decision;
import dev.ratelimit.DecisionEvent;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.Source;
import dev.ratelimit.StoreHealth;
import dev.ratelimit.Undecided;
import dev.ratelimit.Verdict;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

/**
 * Records what the limiter does as Micrometer meters. Register it as the filter's and the store's
 * {@link RateLimitListener}. In Prometheus' names:
 * <ul>
 *   <li>{@code ratelimit_decisions_total{tier,endpoint,algorithm,outcome}}: outcome is
 *       {@code allowed}, {@code rejected}, {@code shadow_rejected}, {@code failed_open},
 *       {@code fallback_allowed}, {@code fallback_rejected} or {@code unavailable};</li>
 *   <li>{@code ratelimit_undecided_total{reason,outcome}}: requests the filter meant to limit and
 *       could not decide; reason {@code invalid_client} (a malformed API key) or {@code failure} (a
 *       resolver or store threw), outcome {@code refused} (a 400 or 503) or {@code passed};</li>
 *   <li>{@code ratelimit_near_limit_total{tier,endpoint}}: allowed with under 20% of the limit left;</li>
 *   <li>{@code ratelimit_remaining_percent{tier,endpoint}}: remaining as a percentage of the limit
 *       after each decision, a histogram with buckets every 10 (bucket {@code le="10.0"} counts the
 *       decisions that left at most 10% of the limit);</li>
 *   <li>{@code ratelimit_decision_seconds}: the whole decision (histogram, for p50/p99);</li>
 *   <li>{@code ratelimit_store_seconds{result}}: each store call, {@code ok} or {@code error} (see
 *       {@link RateLimitListener#onStoreCall} for a call sent again);</li>
 *   <li>{@code ratelimit_store_errors_total};</li>
 *   <li>{@code ratelimit_store_health{state}}: 1 for the current state ({@code up},
 *       {@code degraded}: deciding by the failure mode, e.g. the local fallback; {@code circuit_open}),
 *       0 for the others;</li>
 *   <li>{@code ratelimit_store_health_changes_total{from,to}}: each change of health, so that an outage
 *       shorter than a scrape interval still shows: {@code to="degraded"} is the failure mode (fallback)
 *       entered, {@code from="degraded",to="circuit_open"} the circuit opened, {@code to="up"} the
 *       circuit closed and the fallback left;</li>
 *   <li>{@code ratelimit_tracked_keys}: when given a supplier (e.g. {@code memoryStore::trackedKeys}).</li>
 * </ul>
 * Meters are created once per tag combination and cached, at zero when the filter binds its limits
 * ({@link #onLimitBound}), so that Prometheus' {@code increase} counts a tier's first decisions after a
 * start too; recording a decision allocates nothing. Counters and timers of several listeners on one registry add up; the health and
 * tracked-keys gauges are the latest listener's: one created later on the same registry (after a
 * reload, say) takes them over from its predecessor, and one created without a tracked-keys supplier
 * removes its predecessor's gauge.
 */
public final class MicrometerListener implements RateLimitListener {
    /*
     * Percent, not a 0..1 ratio: Micrometer's fixed-boundary histograms round each value up to a
     * whole number before choosing its bucket, so a ratio of 0.1 would land in bucket le=1.0.
     * Rounding a percentage up keeps the buckets exact: ceil(x) <= 10 exactly when x <= 10.
     */
    private static final double[] PERCENT_BUCKETS = {10, 20, 30, 40, 50, 60, 70, 80, 90, 100};
    /*
     * Every meter here records on every request. A time window of one buffer (not Micrometer's
     * default 3) updates each _max once per record instead of three times; the _max then covers the
     * last expiry period (2 minutes) and restarts, instead of sliding.
     */

    private final MeterRegistry registry;
    private final ConcurrentHashMap<String, ConcurrentHashMap<String, EndpointMeters>> byTier = new ConcurrentHashMap<>();
    private final Timer decisionTimer;
    private final Timer storeOk;
    private final Timer storeError;
    private final Counter storeErrors;
    private final AtomicReference<StoreHealth> health = new AtomicReference<>(StoreHealth.UP);
    /** Indexed by [reason.ordinal()][passedOn ? 1 : 0]. */
    private final Counter[][] undecided;
    /** Indexed by [from.ordinal()][to.ordinal()]; null on the diagonal. */
    private final Counter[][] healthChanges;

    private MicrometerListener(MeterRegistry registry, LongSupplier trackedKeys) {
        this.registry = registry;
        this.decisionTimer = Timer.builder("ratelimit.decision").description("Time to decide a request, store call included")
                .publishPercentileHistogram().minimumExpectedValue(Duration.ofNanos(1_000)).maximumExpectedValue(Duration.ofSeconds(1))
                .distributionStatisticBufferLength(1).register(registry);
        this.storeOk = storeTimer("ok");
        this.storeError = storeTimer("error");
        this.storeErrors = Counter.builder("ratelimit.store.errors").description("Store calls that failed").register(registry);
        this.undecided = new Counter[Undecided.values().length][2];
        for (Undecided reason : Undecided.values()) {
            for (int passed = 0; passed < 2; passed++) {
                undecided[reason.ordinal()][passed] = Counter.builder("ratelimit.undecided")
                        .description("Requests the filter meant to limit and could not decide")
                        .tag("reason", reason.name().toLowerCase(Locale.ROOT)).tag("outcome", passed == 1 ? "passed" : "refused")
                        .register(registry);
            }
        }
        for (StoreHealth state : StoreHealth.values()) {
            replace(Gauge.builder("ratelimit.store.health", health, h -> h.get() == state ? 1 : 0)
                    .description("1 for the store's current health state")
                    .tag("state", tag(state)), "ratelimit.store.health", "state", tag(state));
        }
        StoreHealth[] states = StoreHealth.values();
        this.healthChanges = new Counter[states.length][states.length];
        for (StoreHealth from : states) {
            for (StoreHealth to : states) {
                if (from != to) {
                    healthChanges[from.ordinal()][to.ordinal()] = Counter.builder("ratelimit.store.health.changes")
                            .description("Changes of the store's health state")
                            .tag("from", tag(from)).tag("to", tag(to)).register(registry);
                }
            }
        }
        if (trackedKeys != null) {
            // A strong reference: a method reference such as memoryStore::trackedKeys is held by
            // nothing else, and a weakly held one would be collected and read NaN.
            replace(Gauge.builder("ratelimit.tracked.keys", trackedKeys, s -> (double) s.getAsLong())
                    .description("Client keys currently tracked by the in-memory store").strongReference(true), "ratelimit.tracked.keys");
        } else {
            // A predecessor's gauge would go on counting (and keeping in memory) a store no longer used.
            removeGauge("ratelimit.tracked.keys");
        }
    }

    /**
     * Registers {@code gauge}, replacing one of the same name and tags: Micrometer would keep the
     * earlier gauge and ignore this one, so after a reload the gauge would go on reading the old
     * listener's health and the old store's keys (and keep that store in memory).
     */
    private void replace(Gauge.Builder<?> gauge, String name, String... tags) {
        removeGauge(name, tags);
        gauge.register(registry);
    }

    private void removeGauge(String name, String... tags) {
        Gauge earlier = registry.find(name).tags(tags).gauge();
        if (earlier != null) {
            registry.remove(earlier);
        }
    }

    /**
     * A listener recording into {@code registry}.
     *
     * @param registry where to register the meters
     * @return a new listener, its store, undecided and health meters already registered
     */
    public static MicrometerListener of(MeterRegistry registry) {
        return new MicrometerListener(registry, null);
    }

    /**
     * A listener that also publishes {@code trackedKeys} as the {@code ratelimit_tracked_keys} gauge.
     *
     * @param registry    where to register the meters
     * @param trackedKeys read at each scrape, e.g. {@code memoryStore::trackedKeys}; held strongly
     * @return a new listener, its store, undecided, health and tracked-keys meters already registered
     */
    public static MicrometerListener of(MeterRegistry registry, LongSupplier trackedKeys) {
        return new MicrometerListener(registry, trackedKeys);
    }

    private static String tag(StoreHealth state) {
        return state.name().toLowerCase(Locale.ROOT);
    }

    private Timer storeTimer(String result) {
        return Timer.builder("ratelimit.store").description("Time of each call to the store").tag("result", result)
                .publishPercentileHistogram().minimumExpectedValue(Duration.ofNanos(1_000)).maximumExpectedValue(Duration.ofSeconds(1))
                .distributionStatisticBufferLength(1).register(registry);
    }

    /** Creates the meters of {@code tier} and {@code endpoint}, for each algorithm of {@code limit}, at zero. */
    @Override
    public void onLimitBound(String tier, String endpoint, Limit limit) {
        EndpointMeters meters = meters(tier, endpoint);
        for (Policy policy : limit.policies()) {
            meters.decisions(policy.algorithm(), Outcome.ALLOWED); // creates every outcome's counter
        }
    }

    @Override
    public void onDecision(DecisionEvent event) {
        Decision d = event.decision();
        EndpointMeters meters = meters(event.tier(), event.endpoint());
        meters.decisions(d.policy().algorithm(), Outcome.of(event)).increment();
        if (d.limit() > 0 && d.source() != Source.FAIL_OPEN && d.source() != Source.FAIL_CLOSED
                && d.verdict() != Verdict.STORE_UNAVAILABLE) {
            meters.remainingPercent.record(100.0 * d.remaining() / d.limit());
            if (d.allowed() && d.remaining() * 5 < d.limit()) {
                meters.nearLimit.increment();
            }
        }
        decisionTimer.record(event.decisionMicros(), TimeUnit.MICROSECONDS);
    }

    /** Looks up before creating, so the common path allocates nothing (no capturing lambda, no key). */
    private EndpointMeters meters(String tier, String endpoint) {
        ConcurrentHashMap<String, EndpointMeters> ofTier = byTier.get(tier);
        if (ofTier == null) {
            ofTier = byTier.computeIfAbsent(tier, t -> new ConcurrentHashMap<>());
        }
        EndpointMeters meters = ofTier.get(endpoint);
        return meters != null ? meters : ofTier.computeIfAbsent(endpoint, e -> new EndpointMeters(tier, e));
    }

    @Override
    public void onUndecided(Undecided reason, boolean passedOn) {
        undecided[reason.ordinal()][passedOn ? 1 : 0].increment();
    }

    @Override
    public void onStoreCall(long micros, boolean ok) {
        (ok ? storeOk : storeError).record(micros, TimeUnit.MICROSECONDS);
    }

    @Override
    public void onStoreError(Throwable error) {
        storeErrors.increment();
    }

    @Override
    public void onHealthChange(StoreHealth previous, StoreHealth current) {
        health.set(current);
        if (previous != current) {
            healthChanges[previous.ordinal()][current.ordinal()].increment();
        }
    }

    /** The meters of one tier and endpoint. */
    private final class EndpointMeters {
        private final String tier;
        private final String endpoint;
        private final ConcurrentHashMap<String, Counter[]> decisions = new ConcurrentHashMap<>();
        private final Counter nearLimit;
        private final DistributionSummary remainingPercent;

        EndpointMeters(String tier, String endpoint) {
            this.tier = tier;
            this.endpoint = endpoint;
            this.nearLimit = Counter.builder("ratelimit.near.limit").description("Allowed requests that left under 20% of the limit")
                    .tag("tier", tier).tag("endpoint", endpoint).register(registry);
            this.remainingPercent = DistributionSummary.builder("ratelimit.remaining.percent")
                    .description("Remaining quota after a decision, in percent of the limit")
                    .tag("tier", tier).tag("endpoint", endpoint).serviceLevelObjectives(PERCENT_BUCKETS)
                    .distributionStatisticBufferLength(1).register(registry);
        }

        Counter decisions(String algorithm, Outcome outcome) {
            Counter[] byOutcome = decisions.get(algorithm);
            if (byOutcome == null) {
                byOutcome = decisions.computeIfAbsent(algorithm, a -> {
                    Counter[] counters = new Counter[Outcome.values().length];
                    for (Outcome o : Outcome.values()) {
                        counters[o.ordinal()] = Counter.builder("ratelimit.decisions").description("Rate-limit decisions")
                                .tag("tier", tier).tag("endpoint", endpoint).tag("algorithm", a).tag("outcome", o.tag)
                                .register(registry);
                    }
                    return counters;
                });
            }
            return byOutcome[outcome.ordinal()];
        }
    }
}
