package dev.ratelimit.example.api;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * The example API under {@code /api/*}, answering small JSON documents (the seed's answers):
 * <pre>
 * GET  /api/scan     200 {"status":"scanning"}
 * GET  /api/reports  200 {"reports":[]}
 * POST /api/login    200 {"token":"mock-jwt"}   (after reading the request body, at most 16 KiB)
 * </pre>
 * {@code HEAD} is served wherever {@code GET} is (headers only). A known path with another method is
 * a 405 with {@code Allow}; any other path a 404; a login body
 * over 16 KiB a 413. Every answer is {@code application/json}.
 */
public class ApiServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    /** The largest login body read. */
    static final int MAX_LOGIN_BODY = 16 * 1024;

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String path = request.getPathInfo() == null ? "" : request.getPathInfo();
        if (path.length() > 1 && path.endsWith("/")) {
            // The filter counts /api/scan/ as /api/scan: answer it as /api/scan too, not with a 404 it paid for.
            path = path.substring(0, path.length() - 1);
        }
        String method = request.getMethod();
        switch (path) {
            case "/scan" -> answer(response, method, "GET", "{\"status\":\"scanning\"}");
            case "/reports" -> answer(response, method, "GET", "{\"reports\":[]}");
            case "/login" -> {
                if (method.equals("POST") && !readBody(request)) {
                    json(response, HttpServletResponse.SC_REQUEST_ENTITY_TOO_LARGE,
                            "{\"error\":\"the login body must be at most " + MAX_LOGIN_BODY + " bytes\"}");
                    return;
                }
                answer(response, method, "POST", "{\"token\":\"mock-jwt\"}");
            }
            default -> json(response, HttpServletResponse.SC_NOT_FOUND, "{\"error\":\"not found\"}");
        }
    }

    private static void answer(HttpServletResponse response, String method, String allowed, String body) throws IOException {
        boolean head = method.equals("HEAD") && allowed.equals("GET");
        if (!method.equals(allowed) && !head) {
            response.setHeader("Allow", allowed.equals("GET") ? "GET, HEAD" : allowed);
            json(response, HttpServletResponse.SC_METHOD_NOT_ALLOWED, "{\"error\":\"method not allowed, use " + allowed + "\"}");
            return;
        }
        if (head) {
            // HEAD is GET without the body (the filter counts it under the GET rule, so it must be served).
            response.setStatus(HttpServletResponse.SC_OK);
            response.setContentType("application/json");
            response.setContentLength(body.getBytes(StandardCharsets.UTF_8).length);
            return;
        }
        json(response, HttpServletResponse.SC_OK, body);
    }

    /** Reads (and discards) the body; false when it is larger than {@link #MAX_LOGIN_BODY}. */
    private static boolean readBody(HttpServletRequest request) throws IOException {
        byte[] buffer = new byte[4096];
        long total = 0;
        try (InputStream in = request.getInputStream()) {
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                total += n;
                if (total > MAX_LOGIN_BODY) {
                    return false;
                }
            }
        }
        return true;
    }

    static void json(HttpServletResponse response, int status, String body) throws IOException {
        response.setStatus(status);
        response.setContentType("application/json");
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        response.setContentLength(bytes.length);
        response.getOutputStream().write(bytes);
    }
}
