package dev.ratelimit.example.api;

import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;

/**
 * A servlet that serves GET (and so HEAD) only: any other method, including one HttpServlet does not
 * know (PATCH, a lower-case {@code get}, an invented one), is a 405 with {@code Allow}, as on
 * {@code /api/*}, never HttpServlet's 501: no client input should cause a 5xx.
 */
public abstract class GetOnlyServlet extends HttpServlet {
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

    /** The app's 404 for a path this servlet does not serve: {@code {"error":"not found"}}, as everywhere else. */
    protected static void notFound(HttpServletResponse response) throws IOException {
        ApiServlet.json(response, HttpServletResponse.SC_NOT_FOUND, "{\"error\":\"not found\"}");
    }
}
