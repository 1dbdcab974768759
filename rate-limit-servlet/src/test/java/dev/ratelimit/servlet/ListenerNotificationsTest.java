package dev.ratelimit.servlet;

import dev.ratelimit.DecisionEvent;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.config.EndpointRule;
import dev.ratelimit.config.RateLimitConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/** What a metrics listener hears: every binding before any request, and each decision's own duration. */
class ListenerNotificationsTest {
    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00.250Z"));
    private TestServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static RateLimitConfig config() {
        return RateLimitConfig.builder()
                .endpoint(EndpointRule.of("GET", "/api/scan", "scan"))
                .limit("free", "scan", Policy.tokenBucket(2, 1, Duration.ofSeconds(1)))
                .limit("pro", "scan", Policy.tokenBucket(20, 10, Duration.ofSeconds(1)))
                .build();
    }

    @Test
    void theListenerHearsEveryTierAndEndpointBoundBeforeAnyRequest() {
        List<String> bound = new CopyOnWriteArrayList<>();
        RateLimitListener listener = new RateLimitListener() {
            @Override
            public void onLimitBound(String tier, String endpoint, Limit limit) {
                bound.add(tier + "/" + endpoint + "/" + limit.policies().get(0).limit());
            }
        };

        RateLimitFilter.builder().config(config()).clock(clock).listener(listener).build();

        assertThat(bound).containsExactlyInAnyOrder("free/scan/2", "pro/scan/20");
    }

    @Test
    void aDecisionTakingNoTimeOnTheClockIsReportedAsTakingNone() {
        RecordingListener recorder = new RecordingListener();
        server = TestServer.start(RateLimitFilter.builder().config(config()).clock(clock).listener(recorder).build());

        server.get("/api/scan");

        assertThat(recorder.decisions).singleElement().extracting(DecisionEvent::decisionMicros).isEqualTo(0L);
    }
}
