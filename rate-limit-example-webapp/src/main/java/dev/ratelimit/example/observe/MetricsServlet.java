package dev.ratelimit.example.observe;

import dev.ratelimit.example.api.GetOnlyServlet;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;

/**
 * {@code GET /metrics}: every meter of {@code registry} in Prometheus' text exposition format
 * (version 0.0.4), for a Prometheus scrape and for the dashboard page. Each scrape is a fresh
 * snapshot ({@code Cache-Control: no-store}).
 */
public final class MetricsServlet extends GetOnlyServlet {
    /** The text exposition format every Prometheus server (and the dashboard's parser) reads. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
    private static final long serialVersionUID = 1L;

    private final transient PrometheusMeterRegistry registry;

    /** Serves {@code registry}. */
    public MetricsServlet(PrometheusMeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setStatus(HttpServletResponse.SC_OK);
        response.setContentType(CONTENT_TYPE);
        response.setHeader("Cache-Control", "no-store");
        registry.scrape(response.getOutputStream(), CONTENT_TYPE);
    }
}
