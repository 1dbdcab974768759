package dev.ratelimit.example.api;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;

/**
 * {@code GET /health}: {@code 200 {"status":"UP"}} while the application serves requests. Never rate
 * limited: it is outside the filter's {@code /api/*} mapping and on the bundled allowlist. Any other
 * method is a 405 ({@link GetOnlyServlet}).
 */
public class HealthServlet extends GetOnlyServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        ApiServlet.json(response, HttpServletResponse.SC_OK, "{\"status\":\"UP\"}");
    }
}
