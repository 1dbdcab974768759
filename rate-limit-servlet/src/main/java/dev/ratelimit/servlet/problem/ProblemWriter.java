package dev.ratelimit.servlet.problem;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;

/** Sends a {@link Problem} as the whole response: its status, {@code application/problem+json}, the JSON body. */
public final class ProblemWriter {
    /** The RFC 9457 media type. */
    public static final String MEDIA_TYPE = "application/problem+json";

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private final AtomicBoolean bodyFailureLogged = new AtomicBoolean();

    /**
     * The JSON of {@code problem}, written here rather than by Jackson: Jackson's buffer recycling keeps
     * a buffer per thread, held by the container's threads, which in an application server kept every
     * undeployed application's class loader (and with it all its classes) alive. A problem is ten flat
     * members; the members come in the record's order, null ones left out, as Jackson would write them.
     *
     * @param problem the problem
     * @return its JSON, ASCII only (other characters escaped), null members left out
     */
    public byte[] json(Problem problem) {
        StringBuilder json = new StringBuilder(320).append('{');
        member(json, "type", problem.type());
        member(json, "title", problem.title());
        member(json, "status", (long) problem.status());
        member(json, "detail", problem.detail());
        member(json, "error", problem.error());
        member(json, "retry_after", problem.retryAfter());
        member(json, "tier", problem.tier());
        member(json, "endpoint", problem.endpoint());
        member(json, "policy", problem.policy());
        member(json, "limit", problem.limit());
        return json.append('}').toString().getBytes(StandardCharsets.US_ASCII);
    }

    private static void member(StringBuilder json, String name, Long value) {
        if (value != null) {
            name(json, name).append(value.longValue());
        }
    }

    private static void member(StringBuilder json, String name, String value) {
        if (value != null) {
            string(name(json, name), value);
        }
    }

    private static StringBuilder name(StringBuilder json, String name) {
        if (json.length() > 1) {
            json.append(',');
        }
        return json.append('"').append(name).append("\":");
    }

    /**
     * A JSON string of visible ASCII only, so that a writer of any charset sends the same bytes: the
     * quote and backslash escaped, as is every other character (control, DEL, non-ASCII: each UTF-16
     * unit as a backslash-u escape of four hex digits), with JSON's short escapes where they exist.
     */
    private static void string(StringBuilder json, String value) {
        json.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                case '\n' -> json.append("\\n");
                case '\r' -> json.append("\\r");
                case '\t' -> json.append("\\t");
                case '\b' -> json.append("\\b");
                case '\f' -> json.append("\\f");
                default -> {
                    if (c >= 0x20 && c < 0x7f) {
                        json.append(c);
                    } else {
                        json.append("\\u").append(HEX[c >> 12 & 0xf]).append(HEX[c >> 8 & 0xf]).append(HEX[c >> 4 & 0xf]).append(HEX[c & 0xf]);
                    }
                }
            }
        }
        json.append('"');
    }

    /**
     * Sets the status and content type and writes the body, in place of anything buffered (except in an
     * include) and through the writer if the application already took it (in an include, through the
     * writer unless the including page took the output stream); headers already set are kept,
     * but {@code Cache-Control} says {@code no-store}: a refusal is for this client, now, and a shared
     * cache must not serve it to others whatever an earlier filter said. The response is not flushed,
     * so filters outside this one can still add their headers. A response the application already
     * committed (an async re-dispatch after it streamed) can no longer be refused: nothing is written. When
     * {@code request} came over HTTP/1.x with a body (which a refusal never reads), the answer also says
     * {@code Connection: close}: a server cannot keep a connection whose request body it did not
     * consume, and without the header the client would send its next request on a connection that is
     * being closed (and lose it, if it is not a request a client may repeat, such as a POST).
     *
     * <p>A container that fails writing the body with a runtime exception leaves the refusal with its
     * status and headers and without its body (logged once), never an exception that would pass the
     * request on.
     *
     * @param request  the request refused
     * @param response its response
     * @param problem  what to send
     * @throws IOException when writing the body fails
     */
    public void send(HttpServletRequest request, HttpServletResponse response, Problem problem) throws IOException {
        if (response.isCommitted()) {
            return;
        }
        byte[] body = json(problem);
        if (hasBody(request) && request.getProtocol() != null && request.getProtocol().startsWith("HTTP/1.")) {
            response.setHeader("Connection", "close");
        }
        boolean include = request.getDispatcherType() == DispatcherType.INCLUDE;
        // An async re-dispatch keeps what the application buffered and the length it announced before
        // it: the problem is the whole answer, and a length left over would fail it with a 500. It is
        // replaced by the problem's own, not cleared with -1, which Open Liberty takes literally.
        boolean staleLength = !include && response.containsHeader("Content-Length");
        if (!include) {
            response.resetBuffer();
        }
        response.setStatus(problem.status());
        response.setContentType(MEDIA_TYPE);
        response.setHeader("Cache-Control", "no-store");
        try {
            write(request, response, body, staleLength);
        } catch (RuntimeException containerFailed) {
            // The status and headers are set: the refusal goes without its body rather than not at all (the
            // filter would take the exception for a failure to decide and, failing open, pass the request on).
            // An include keeps what the including page wrote.
            if (!include) {
                try {
                    response.resetBuffer();
                    if (staleLength) {
                        response.setContentLength(0);
                    }
                } catch (IllegalStateException committed) {
                    // what was written stays
                }
            }
            if (bodyFailureLogged.compareAndSet(false, true)) {
                LoggerFactory.getLogger(ProblemWriter.class).warn("RateLimitFilter: the container could not write the body of a "
                        + problem.status() + ": " + containerFailed.getClass().getName() + "; refusals go with their status and "
                        + "headers but may lack their body (said once)");
            }
        }
    }

    /** @param staleLength whether a length the application set stands, to be replaced by the bytes written */
    private static void write(HttpServletRequest request, HttpServletResponse response, byte[] body, boolean staleLength)
            throws IOException {
        if (request.getDispatcherType() == DispatcherType.INCLUDE) {
            // The including page goes on writing after the include, most often through its writer (a JSP
            // always): taking the output stream here would make its getWriter() throw, the page a 500.
            try {
                response.getWriter().write(new String(body, StandardCharsets.US_ASCII));
                return;
            } catch (IllegalStateException streamTaken) {
                // The page took the output stream: the refusal goes there.
            }
        }
        ServletOutputStream out;
        try {
            out = response.getOutputStream();
        } catch (IllegalStateException writerTaken) {
            // A dispatch (a forward in Tomcat, an async re-dispatch) keeps the writer the application took
            // before it: the answer goes through it, or the refusal would fail and the request pass on.
            String text = new String(body, StandardCharsets.US_ASCII);
            if (staleLength) {
                if (text.getBytes(charsetOf(response)).length == text.length()) {
                    response.setContentLength(text.length()); // one byte a character, as UTF-8 and ISO-8859-1 write it
                } else {
                    // UTF-16 and the like: whether the writer sends its byte order mark again depends on what it
                    // wrote before, which cannot be known here. The container counts; only there is -1 needed.
                    response.setContentLengthLong(-1);
                }
            }
            response.getWriter().write(text);
            return;
        }
        if (staleLength) {
            response.setContentLength(body.length);
        }
        // No Content-Length otherwise: writing that many bytes would commit the response at once. The
        // container sets it when the response completes (the body is far smaller than its buffer).
        out.write(body);
    }

    private static Charset charsetOf(HttpServletResponse response) {
        try {
            return Charset.forName(response.getCharacterEncoding());
        } catch (IllegalArgumentException unknown) {
            return StandardCharsets.ISO_8859_1; // the Servlet default, as the container would have written
        }
    }

    private static boolean hasBody(HttpServletRequest request) {
        return request.getContentLengthLong() > 0 || request.getHeader("Transfer-Encoding") != null;
    }
}
