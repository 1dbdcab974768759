package dev.ratelimit.example.server;

import dev.ratelimit.Clock;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A method the app does not serve is a 4xx wherever it is sent, never HttpServlet's 501: found by the
 * reliability suite's hostile input, where {@code PATCH /health}, {@code PATCH /metrics}, {@code PATCH /}
 * and a lower-case {@code get} got a 501.
 */
class UnservedMethodsTest {

    @Test
    void healthAnswersAMethodItDoesNotServeWith405AndAllow() {
        try (RunningExample app = RunningExample.start(Clock.system())) {
            HttpResponse<String> patch = app.send("PATCH", "/health", null);
            HttpResponse<String> invented = app.send("get", "/health", null);
            HttpResponse<String> get = app.get("/health");
            HttpResponse<String> head = app.send("HEAD", "/health", null);

            assertThat(patch.statusCode()).isEqualTo(405);
            assertThat(patch.headers().firstValue("Allow")).hasValue("GET, HEAD");
            assertThat(patch.body()).isEqualTo("{\"error\":\"method not allowed, use GET\"}");
            assertThat(invented.statusCode()).isEqualTo(405);
            assertThat(get.statusCode()).isEqualTo(200);
            assertThat(get.body()).isEqualTo("{\"status\":\"UP\",\"store\":\"up\"}");
            assertThat(head.statusCode()).isEqualTo(200);
            assertThat(head.body()).isEmpty();
        }
    }

    @Test
    void metricsAndDashboardAnswerAMethodTheyDoNotServeWith405() {
        try (RunningExample app = RunningExample.start(Clock.system())) {
            HttpResponse<String> metrics = app.send("PATCH", "/metrics", null);
            HttpResponse<String> dashboard = app.send("FROB", "/dashboard/", null);
            HttpResponse<String> scrape = app.get("/metrics");

            assertThat(metrics.statusCode()).isEqualTo(405);
            assertThat(metrics.headers().firstValue("Allow")).hasValue("GET, HEAD");
            assertThat(dashboard.statusCode()).isEqualTo(405);
            assertThat(scrape.statusCode()).isEqualTo(200);
        }
    }

    @Test
    void aPathNothingServesIsA404WhateverTheMethod() {
        try (RunningExample app = RunningExample.start(Clock.system())) {
            HttpResponse<String> patchRoot = app.send("PATCH", "/", null);
            HttpResponse<String> invented = app.send("FROB", "/nothing-here", null);
            HttpResponse<String> get = app.get("/nothing-here");

            assertThat(patchRoot.statusCode()).isEqualTo(404);
            assertThat(invented.statusCode()).isEqualTo(404);
            assertThat(get.statusCode()).isEqualTo(404);
            assertThat(get.body()).isEqualTo("{\"error\":\"not found\"}");
            assertThat(get.headers().firstValue("Content-Type")).hasValue("application/json");
        }
    }
}
