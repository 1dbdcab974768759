package dev.ratelimit.example.api;

import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;

/**
 * {@code GET /health}: {@code 200 {"status":"UP"}} while the application serves requests. Never rate
 * limited: it is outside the filter's {@code /api/*} mapping and on the bundled allowlist. Any method
 * but GET and HEAD is a 405 with {@code Allow}, as on {@code /api/*} (never HttpServlet's 501 for a
 * method it does not know, such as PATCH).
 */
public class HealthServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws ServletException, IOException {
        String method = request.getMethod();
        if (method.equals("GET") || method.equals("HEAD")) {
            super.service(request, response);
            return;
        }
        response.setHeader("Allow", "GET, HEAD");
        ApiServlet.json(response, HttpServletResponse.SC_METHOD_NOT_ALLOWED, "{\"error\":\"method not allowed, use GET\"}");
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        ApiServlet.json(response, HttpServletResponse.SC_OK, "{\"status\":\"UP\"}");
    }
}
