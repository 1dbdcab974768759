package dev.ratelimit.example.observe;

import dev.ratelimit.example.api.GetOnlyServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * {@code GET /dashboard}: the live dashboard page, and its script and style sheet under
 * {@code /dashboard/}. Three fixed files read once from the classpath; any other path under
 * {@code /dashboard/} is a 404 (no file-system access, nothing from another host). The page polls
 * {@code /metrics} every second and draws its charts itself (see {@code dashboard.js}).
 */
public final class DashboardServlet extends GetOnlyServlet {
    private static final long serialVersionUID = 1L;
    private static final String BASE = "/dev/ratelimit/example/observe/";

    /** Path info (null for {@code /dashboard} itself) to the file and its content type. */
    private static final Map<String, Asset> ASSETS = Map.of(
            "", asset("dashboard.html", "text/html; charset=utf-8"),
            "/dashboard.js", asset("dashboard.js", "text/javascript; charset=utf-8"),
            "/dashboard.css", asset("dashboard.css", "text/css; charset=utf-8"));

    private record Asset(byte[] bytes, String contentType) {
    }

    private static Asset asset(String name, String contentType) {
        try (InputStream in = DashboardServlet.class.getResourceAsStream(BASE + name)) {
            if (in == null) {
                throw new IllegalStateException("missing classpath resource " + BASE + name);
            }
            return new Asset(in.readAllBytes(), contentType);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String path = request.getPathInfo();
        Asset asset = ASSETS.get(path == null || path.equals("/") ? "" : path);
        if (asset == null) {
            notFound(response);
            return;
        }
        response.setStatus(HttpServletResponse.SC_OK);
        response.setContentType(asset.contentType());
        response.setHeader("Cache-Control", "no-cache");
        response.setHeader("X-Content-Type-Options", "nosniff");
        // Everything the page loads comes from this app: say so to the browser too.
        response.setHeader("Content-Security-Policy", "default-src 'self'; img-src 'self' data:");
        response.setContentLength(asset.bytes().length);
        response.getOutputStream().write(asset.bytes());
    }
}
