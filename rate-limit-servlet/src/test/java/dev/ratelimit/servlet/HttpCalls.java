package dev.ratelimit.servlet;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** HTTP/1.1 calls to a test server on 127.0.0.1, whatever the container (Jetty or Tomcat). */
final class HttpCalls {
    static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private HttpCalls() {
    }

    /** {@code method uri} with an optional body and header name/value pairs. */
    static HttpRequest request(URI uri, String method, String body, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return b.build();
    }

    /** Sends {@link #request} and reads the answer as text; a failure is an IllegalStateException. */
    static HttpResponse<String> send(URI uri, String method, String body, String... headers) {
        try {
            return CLIENT.send(request(uri, method, body, headers), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException(method + " " + uri.getPath() + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Sends raw bytes, each char as one ISO-8859-1 byte (for what HttpClient refuses to send: control
     * characters, non-ASCII bytes), on a new connection; the whole response as text, read until the
     * server closes. The request should say {@code Connection: close}.
     */
    static String raw(int port, String request) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new IllegalStateException("raw request failed: " + e, e);
        }
    }
}
