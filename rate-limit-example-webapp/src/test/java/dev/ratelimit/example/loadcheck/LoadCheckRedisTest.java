package dev.ratelimit.example.loadcheck;

import dev.ratelimit.Clock;
import dev.ratelimit.example.server.RunningExample;
import dev.ratelimit.testing.RedisServer;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The load check against two instances sharing one real Redis: every client stays within its bound. */
class LoadCheckRedisTest {

    @Test
    void twoInstancesSharingOneRedisKeepEveryClientWithinItsBound() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit;
        // FAIL_CLOSED and a generous timeout: a slow test machine may refuse (503, counted as "other"),
        // but never decide locally, which would let each instance admit on its own.
        Map<String, String> env = Map.of("RATE_LIMIT_FAILURE_MODE", "FAIL_CLOSED", "RATE_LIMIT_REDIS_TIMEOUT", "2s");
        try (RedisServer redis = RedisServer.start();
             RunningExample a = RunningExample.start(Clock.system(), withUrl(env, redis));
             RunningExample b = RunningExample.start(Clock.system(), withUrl(env, redis))) {
            exit = LoadCheck.run(new String[] {"--url=" + a.uri() + "," + b.uri(), "--tiers=free,pro", "--clients=6",
                    "--duration=2s", "--progress=1s"}, Clock.system(), new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
        }
        String report = out.toString(StandardCharsets.UTF_8);

        assertThat(exit).as(report).isZero();
        assertThat(report).containsPattern("free +scan +token bucket 10, \\+1/1s +1 .* ok")
                .containsPattern("pro +login +fixed window 50/1m +1 .* ok")
                .contains("OK: every client stayed within its limit's bound");
    }

    @Test
    void overAdmissionByTheLocalFallbackIsBlamedOnTheFallbackNotOnTheSetup() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit;
        int nothingListens;
        try (ServerSocket socket = new ServerSocket(0)) {
            nothingListens = socket.getLocalPort();
        }
        // The example's default LOCAL_FALLBACK with a share of 1.0: each instance admits the whole limit alone.
        Map<String, String> env = Map.of("REDIS_URL", "redis://127.0.0.1:" + nothingListens);
        try (RunningExample a = RunningExample.start(Clock.system(), env);
             RunningExample b = RunningExample.start(Clock.system(), env)) {
            exit = LoadCheck.run(new String[] {"--url=" + a.uri() + "," + b.uri(), "--tiers=free", "--endpoints=scan",
                    "--clients=2", "--duration=1s"}, Clock.system(), new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
        }
        String report = out.toString(StandardCharsets.UTF_8);

        assertThat(exit).as(report).isEqualTo(LoadCheck.OVER_LIMIT);
        assertThat(report).containsPattern("the servers decided (\\d+) of \\1 requests without their store \\(their /metrics: "
                        + "local fallback, fail-open or 503\\): was Redis failing or slower than its timeout\\? See their logs and /health\n")
                .contains("FAILED: some clients were admitted more than their limit allows (rows marked OVER): decisions made "
                        + "without the store are each instance's alone (under LOCAL_FALLBACK, its fallback share of the limit)")
                .doesNotContain("do the instances share one store");
    }

    private static Map<String, String> withUrl(Map<String, String> env, RedisServer redis) {
        java.util.Map<String, String> all = new java.util.HashMap<>(env);
        all.put("REDIS_URL", redis.url());
        return all;
    }
}
