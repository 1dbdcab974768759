package dev.ratelimit.store.redis;

import dev.ratelimit.Decision;
import dev.ratelimit.FailureMode;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.Source;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A server that accepts connections and never answers (a frozen Redis, a blackholed sentinel), in
 * every topology: a decision waits out one timeout and follows the failure mode; it does not try
 * again, which would wait the timeout out a second time. The server counts the connections made to
 * it, which is how many attempts the decision made.
 */
class RedisThatNeverAnswersTest {
    private static final Limit LIMIT = Limit.of("never-answers", Policy.fixedWindow(10, Duration.ofMinutes(1)));

    private ServerSocket server;
    private final List<Socket> accepted = new CopyOnWriteArrayList<>();
    private Thread acceptor;

    @BeforeEach
    void listen() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        acceptor = new Thread(() -> {
            try {
                while (true) {
                    accepted.add(server.accept()); // held open, never read, never answered
                }
            } catch (IOException closed) {
                // the test is over
            }
        }, "never-answers");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    @AfterEach
    void close() throws Exception {
        server.close();
        acceptor.join();
        for (Socket s : accepted) {
            s.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"redis://127.0.0.1:%d", "redis-cluster://127.0.0.1:%d", "redis-sentinel://127.0.0.1:%d/mymaster"})
    void aDecisionConnectsOnceAndFollowsTheFailureMode(String urlFormat) throws IOException {
        try (RedisStore store = RedisStore.builder().url(urlFormat.formatted(server.getLocalPort()))
                .failureMode(FailureMode.LOCAL_FALLBACK)
                .connectTimeout(Duration.ofMillis(200)).readTimeout(Duration.ofMillis(200)).build()) {
            Decision d = store.limiter(LIMIT).tryAcquire("client");
            assertThat(d.source()).isEqualTo(Source.LOCAL_FALLBACK);
        }
        assertThat(connectionsMade()).as("connections to the server that never answers").isEqualTo(1);
    }

    /** Connections made so far: a marker connection of our own, accepted after all of them, tells when all are counted. */
    private int connectionsMade() throws IOException {
        try (Socket marker = new Socket(server.getInetAddress(), server.getLocalPort())) {
            await().until(() -> accepted.stream().anyMatch(s -> s.getPort() == marker.getLocalPort()));
            return accepted.size() - 1;
        }
    }
}
