package dev.ratelimit.servlet;

import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;

import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.Map;

/** A filter's configuration from a map of init-params, as a container would hand it over. */
final class MapFilterConfig implements FilterConfig {
    private final Map<String, String> params = new LinkedHashMap<>();

    MapFilterConfig(String... namesAndValues) {
        for (int i = 0; i < namesAndValues.length; i += 2) {
            params.put(namesAndValues[i], namesAndValues[i + 1]);
        }
    }

    @Override
    public String getFilterName() {
        return "rateLimit";
    }

    @Override
    public ServletContext getServletContext() {
        return null;
    }

    @Override
    public String getInitParameter(String name) {
        return params.get(name);
    }

    @Override
    public Enumeration<String> getInitParameterNames() {
        return Collections.enumeration(params.keySet());
    }
}
