package dev.ratelimit.servlet.problem;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.ser.DefaultSerializerProvider;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** Sends a {@link Problem} as the whole response: its status, {@code application/problem+json}, the JSON body. */
public final class ProblemWriter {
    /** The RFC 9457 media type. */
    public static final String MEDIA_TYPE = "application/problem+json";

    // ASCII-only JSON: the same bytes whatever charset a writer the application took encodes in.
    private final ObjectMapper mapper = JsonMapper.builder().enable(JsonWriteFeature.ESCAPE_NON_ASCII).build();

    /**
     * A writer whose serializer is ready: Jackson builds it on first use, loading and introspecting
     * classes for tens of milliseconds, which is start-up work, not the first refused client's (on a
     * virtual thread, class initialization also pins its carrier).
     */
    public ProblemWriter() {
        json(Problem.unavailable("warm-up", "warm-up", 1));
    }

    /** How many serializers the writer holds ready, for tests. */
    int readySerializers() {
        return ((DefaultSerializerProvider) mapper.getSerializerProvider()).cachedSerializersCount();
    }

    /**
     * The JSON of {@code problem}.
     *
     * @param problem the problem
     * @return its JSON, ASCII only (other characters escaped), null members left out
     */
    public byte[] json(Problem problem) {
        try {
            return mapper.writeValueAsBytes(problem);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("a Problem is always serializable", e);
        }
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
        if (request.getDispatcherType() != DispatcherType.INCLUDE) {
            // An async re-dispatch keeps what the application buffered and the length it announced before
            // it: the problem is the whole answer, and a length left over would fail it with a 500.
            response.resetBuffer();
            response.setContentLengthLong(-1);
        }
        response.setStatus(problem.status());
        response.setContentType(MEDIA_TYPE);
        response.setHeader("Cache-Control", "no-store");
        if (request.getDispatcherType() == DispatcherType.INCLUDE) {
            // The including page goes on writing after the include, most often through its writer (a JSP
            // always): taking the output stream here would make its getWriter() throw, the page a 500.
            try {
                response.getWriter().write(new String(body, StandardCharsets.UTF_8));
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
            response.getWriter().write(new String(body, StandardCharsets.UTF_8));
            return;
        }
        // No Content-Length: writing that many bytes would commit the response at once. The container
        // sets it when the response completes (the body is far smaller than its buffer).
        out.write(body);
    }

    private static boolean hasBody(HttpServletRequest request) {
        return request.getContentLengthLong() > 0 || request.getHeader("Transfer-Encoding") != null;
    }
}
