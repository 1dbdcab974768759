package dev.ratelimit.example.loadcheck;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.ratelimit.Clock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The load check against a deliberately wrong server: in epoch-aligned windows of 500 ms where the
 * configured limit is 5, it admits 6 in every other window (spread over the middle of the window)
 * and none in the windows between. The whole run stays well within {@code 5 * windows touched}, so
 * only a look at single windows can tell.
 */
class LoadCheckOverAdmissionTest {
    private static final String CONFIG = """
            {
              "defaultTier": "free",
              "tierPrefixes": { "sk-free-": "free" },
              "endpoints": [
                { "method": "GET", "path": "/api/scan", "name": "scan" },
                { "method": "GET", "path": "/api/reports", "name": "reports" }
              ],
              "tiers": {
                "free": {
                  "scan": { "algorithm": "fixed_window", "limit": 5, "window": "500ms" },
                  "reports": { "algorithm": "sliding_window_counter", "limit": 5, "window": "500ms" }
                }
              }
            }
            """;
    private static final long WINDOW_MICROS = 500_000;
    private static final int ADMITTED_PER_WINDOW = 6;
    /** Admissions start this far into a window and come at least this far apart: far from its edges. */
    private static final long FIRST_OFFSET_MICROS = 100_000;
    private static final long SPACING_MICROS = 25_000;

    @TempDir
    Path dir;

    @Test
    void catchesOneRequestTooManyInOneWindowThatTheWholeRunsBoundHides() throws Exception {
        Path config = Files.writeString(dir.resolve("windows.json"), CONFIG);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit;
        try (OverAdmittingServer server = new OverAdmittingServer(Clock.system())) {
            exit = LoadCheck.run(new String[] {"--url=" + server.url(), "--config=" + config, "--clients=2", "--duration=2s",
                    "--skew=50ms", "--progress=0s"}, Clock.system(), new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
        }
        String report = out.toString(StandardCharsets.UTF_8).replace(System.lineSeparator(), "\n");

        assertThat(exit).as(report).isEqualTo(LoadCheck.OVER_LIMIT);
        assertThat(report).containsPattern("free +scan +fixed window 5/500ms .* 6/5 .* OVER\n")
                .containsPattern("free +reports +sliding counter 5/500ms .* 6/5 .* OVER\n");
    }

    /**
     * Admits {@link #ADMITTED_PER_WINDOW} requests per key and path in every odd epoch-aligned window,
     * from {@link #FIRST_OFFSET_MICROS} into it, {@link #SPACING_MICROS} apart; nothing in even windows.
     */
    private static final class OverAdmittingServer implements AutoCloseable {
        private final HttpServer http;
        private final ExecutorService executor = Executors.newFixedThreadPool(4);
        private final Clock clock;
        /** Per key and path: the window, admissions in it, the last admission. */
        private final Map<String, long[]> windows = new HashMap<>();

        OverAdmittingServer(Clock clock) throws IOException {
            this.clock = clock;
            this.http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            http.createContext("/", this::handle);
            http.setExecutor(executor);
            http.start();
        }

        String url() {
            return "http://127.0.0.1:" + http.getAddress().getPort();
        }

        private void handle(HttpExchange exchange) throws IOException {
            try (InputStream in = exchange.getRequestBody()) {
                in.readAllBytes();
            }
            String key = exchange.getRequestHeaders().getFirst("X-API-Key") + " " + exchange.getRequestURI().getPath();
            boolean admitted;
            synchronized (windows) {
                long now = clock.nowMicros();
                long window = Math.floorDiv(now, WINDOW_MICROS);
                long[] w = windows.computeIfAbsent(key, k -> new long[] {window, 0, Long.MIN_VALUE / 2});
                if (w[0] != window) {
                    w[0] = window;
                    w[1] = 0;
                }
                admitted = Math.floorMod(window, 2) == 1 && now - window * WINDOW_MICROS >= FIRST_OFFSET_MICROS
                        && now - w[2] >= SPACING_MICROS && w[1] < ADMITTED_PER_WINDOW;
                if (admitted) {
                    w[1]++;
                    w[2] = now;
                }
            }
            exchange.sendResponseHeaders(admitted ? 200 : 429, -1);
            exchange.close();
        }

        @Override
        public void close() {
            http.stop(0);
            executor.shutdownNow();
        }
    }
}
