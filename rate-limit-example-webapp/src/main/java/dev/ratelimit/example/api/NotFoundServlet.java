package dev.ratelimit.example.api;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;

/**
 * Every path nothing else serves, whatever the method: {@code 404 {"error":"not found"}}, as under
 * {@code /api/*}. Without it, Jetty's fallback servlet answers a method HttpServlet does not know
 * (PATCH, or any invented one) with a 501, a 5xx that no client input should cause.
 */
public class NotFoundServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        ApiServlet.json(response, HttpServletResponse.SC_NOT_FOUND, "{\"error\":\"not found\"}");
    }
}
