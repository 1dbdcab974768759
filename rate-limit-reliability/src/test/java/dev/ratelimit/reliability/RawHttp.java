package dev.ratelimit.reliability;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * Raw bytes over a socket, for requests no HTTP client would send: control characters in header
 * values, bare CR or LF, 8-bit bytes, odd methods, huge headers. One connection per request; the
 * answer is everything the server sent until it closed the connection.
 */
final class RawHttp {
    /** @param status the status code of the answer, or 0 when the server sent none (closed, or silent for 10 s) */
    record Answer(int status, String text) {
    }

    private RawHttp() {
    }

    /** {@code head} (request line and header lines, each ending in CRLF, without the final empty line) + Connection: close. */
    static Answer send(int port, byte[] head) {
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        request.writeBytes(head);
        request.writeBytes("Connection: close\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.toByteArray());
            out.flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            try {
                for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                    answer.write(buffer, 0, n);
                }
            } catch (SocketTimeoutException silent) {
                // what came so far is the answer
            } catch (IOException reset) {
                // the server may reset a connection it refused; what came so far is the answer
            }
            String text = answer.toString(StandardCharsets.ISO_8859_1);
            return new Answer(status(text), text);
        } catch (IOException e) {
            return new Answer(0, "no connection: " + e);
        }
    }

    private static int status(String text) {
        if (text.length() >= 12 && text.startsWith("HTTP/1.") && text.charAt(8) == ' ') {
            try {
                return Integer.parseInt(text.substring(9, 12));
            } catch (NumberFormatException e) {
                return 0;
            }
        }
        return 0;
    }
}
