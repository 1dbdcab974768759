package dev.ratelimit.servlet.problem;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.io.UncheckedIOException;

/** Sends a {@link Problem} as the whole response: its status, {@code application/problem+json}, the JSON body. */
public final class ProblemWriter {
    /** The RFC 9457 media type. */
    public static final String MEDIA_TYPE = "application/problem+json";

    private final ObjectMapper mapper = new ObjectMapper();

    /** The JSON of {@code problem}. */
    public byte[] json(Problem problem) {
        try {
            return mapper.writeValueAsBytes(problem);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("a Problem is always serializable", e);
        }
    }

    /** Sets the status and content type and writes the body; headers already set are kept. */
    public void send(HttpServletResponse response, Problem problem) throws IOException {
        byte[] body = json(problem);
        response.setStatus(problem.status());
        response.setContentType(MEDIA_TYPE);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
        response.flushBuffer();
    }
}
