package dev.ratelimit.example.artifacts;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The packaged executable jar, run as users run it: {@code java -jar target/rate-limit-example.jar}. */
class ExecutableJarIT {

    @Test
    void startsFromTheJarLogsItsSetupAndLimitsTheApi() throws Exception {
        try (JarProcess jar = JarProcess.start(Map.of("RATE_LIMIT_HOST", "127.0.0.1"), "--port=0")) {
            int port = jar.awaitListening();
            // A bad Host header: Jetty answers 400 and, at WARN, would log it raw (a NEL in it forges a line for some readers).
            try (Socket socket = new Socket("127.0.0.1", port)) {
                socket.getOutputStream().write("GET /api/scan HTTP/1.1\r\nHost: [zz\u0085forged\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                assertThat(new String(socket.getInputStream().readNBytes(12), StandardCharsets.ISO_8859_1)).isEqualTo("HTTP/1.1 400");
            }
            HttpClient client = HttpClient.newHttpClient();
            HttpRequest scan = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/scan"))
                    .header("X-API-Key", "sk-pro-jar").build();

            HttpResponse<String> first = client.send(scan, HttpResponse.BodyHandlers.ofString());

            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(first.body()).isEqualTo("{\"status\":\"scanning\"}");
            assertThat(first.headers().firstValue("X-RateLimit-Limit")).hasValue("100");
            assertThat(first.headers().firstValue("X-RateLimit-Remaining")).hasValue("99");
            assertThat(first.headers().firstValue("RateLimit-Policy")).hasValue("\"scan\";q=100;w=10");
            assertThat(String.join("\n", jar.out()))
                    .contains("store:  in memory")
                    .contains("  enterprise  login     POST /api/login   fixed window 200/1m")
                    .doesNotContain("HostPort").doesNotContain("forged");
        }
    }

    @Test
    void aBadSettingStopsStartUpWithOneLineOnStandardErrorAndNoStackTrace() throws Exception {
        try (JarProcess jar = JarProcess.start(Map.of("RATE_LIMIT_FAILURE_MODE", "maybe"))) {
            int exit = jar.awaitExit();

            assertThat(exit).isEqualTo(2);
            assertThat(jar.err()).containsExactly("rate-limit-example: RATE_LIMIT_FAILURE_MODE=\"maybe\": must be FAIL_OPEN, "
                    + "FAIL_CLOSED or LOCAL_FALLBACK (--help lists every setting)");
            assertThat(jar.out()).isEmpty();
        }
    }

    /**
     * A login whose body is still being uploaded when SIGTERM arrives: the server stops accepting
     * connections, waits for the request, answers it, and only then exits.
     */
    @Test
    void finishesARequestInFlightWhenStoppedBySigterm() throws Exception {
        try (JarProcess jar = JarProcess.start(Map.of(), "--host=127.0.0.1", "--port=0", "--shutdown-timeout=20s");
             Socket socket = new Socket("127.0.0.1", jar.awaitListening())) {
            int port = socket.getPort();
            socket.setSoTimeout(20_000);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            String body = "{\"user\":\"demo\"}" + " ".repeat(985);
            out.write(("POST /api/login HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: sk-free-graceful\r\n"
                    + "Content-Type: application/json\r\nContent-Length: " + body.length() + "\r\nExpect: 100-continue\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            // The servlet has started reading the body: the request is in flight.
            assertThat(readUntil(in, "\r\n\r\n")).startsWith("HTTP/1.1 100 Continue");

            jar.sigterm();
            int[] sent = {0};
            // Keep uploading slowly (so the connection is never idle) until the server refuses new connections.
            await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(50)).until(() -> {
                out.write(body.charAt(sent[0]++));
                out.flush();
                return refusesConnections(port);
            });
            assertThat(jar.isAlive()).as("still waiting for the request in flight").isTrue();
            out.write(body.substring(sent[0]).getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String response = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);

            assertThat(response).startsWith("HTTP/1.1 200 OK").endsWith("{\"token\":\"mock-jwt\"}");
            assertThat(jar.awaitExit()).as("128 + SIGTERM").isEqualTo(143);
            assertThat(jar.out()).anyMatch(line -> line.contains("stopping: requests in flight have up to 20s to finish"))
                    .anyMatch(line -> line.endsWith("INFO example - stopped"));
        }
    }

    private static boolean refusesConnections(int port) throws IOException {
        try {
            new Socket("127.0.0.1", port).close();
            return false;
        } catch (ConnectException e) {
            return true;
        }
    }

    private static String readUntil(InputStream in, String end) throws IOException {
        StringBuilder s = new StringBuilder();
        while (s.indexOf(end) < 0) {
            int c = in.read();
            if (c < 0) {
                break;
            }
            s.append((char) c);
        }
        return s.toString();
    }
}
