package dev.ratelimit.example.server;

import dev.ratelimit.Clock;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** {@link ExampleServer#stop()} as SIGTERM runs it: requests in flight get the whole shutdown timeout. */
class GracefulStopTest {

    @Test
    void aLoginWhoseUploadPausesForMoreThanASecondDuringTheStopIsStillAnswered() throws Exception {
        ExampleServer server = start("--shutdown-timeout=20s");
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(20_000);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            String body = "{\"user\":\"demo\"}" + " ".repeat(85);
            out.write(("POST /api/login HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: sk-free-slow\r\n"
                    + "Content-Type: application/json\r\nContent-Length: " + body.length() + "\r\nExpect: 100-continue\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(readLine(in)).startsWith("HTTP/1.1 100 Continue");

            CompletableFuture<Void> stopped = CompletableFuture.runAsync(server::stop);
            // The client sends nothing for 2 s, well within the 20 s the request in flight was promised.
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> !stopped.isDone());
            out.write(body.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String response = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);

            assertThat(response).startsWith("HTTP/1.1 200 OK").endsWith("{\"token\":\"mock-jwt\"}");
            stopped.get();
        } finally {
            server.stop();
        }
    }

    @Test
    void anIdleKeepAliveConnectionDoesNotHoldTheStopForTheWholeTimeout() throws Exception {
        ExampleServer server = start("--shutdown-timeout=20s");
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(20_000);
            socket.getOutputStream().write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(readLine(socket.getInputStream())).startsWith("HTTP/1.1 200 OK");

            long start = System.nanoTime();
            server.stop();

            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        } finally {
            server.stop();
        }
    }

    private static ExampleServer start(String... args) {
        String[] all = new String[args.length + 2];
        all[0] = "--host=127.0.0.1";
        all[1] = "--port=0";
        System.arraycopy(args, 0, all, 2, args.length);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Main.Launch launch = Main.launch(all, Map.of(), System.out, new PrintStream(err, true, StandardCharsets.UTF_8), Clock.system());
        assertThat(launch.server()).as(err.toString(StandardCharsets.UTF_8)).isNotNull();
        return launch.server();
    }

    private static String readLine(InputStream in) throws Exception {
        StringBuilder s = new StringBuilder();
        while (s.indexOf("\r\n\r\n") < 0) {
            int c = in.read();
            if (c < 0) {
                break;
            }
            s.append((char) c);
        }
        return s.toString();
    }
}
