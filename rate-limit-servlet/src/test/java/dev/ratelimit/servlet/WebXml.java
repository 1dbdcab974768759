package dev.ratelimit.servlet;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A web application's {@code WEB-INF/web.xml} for tests: the filter on {@code /*} in front of {@link AppServlet} at {@code /}. */
final class WebXml {
    private WebXml() {
    }

    /** Writes it under {@code webappDir}, the filter declared with {@code initParams} (name/value pairs). */
    static void writeWithFilter(Path webappDir, String... initParams) throws IOException {
        StringBuilder params = new StringBuilder();
        for (int i = 0; i < initParams.length; i += 2) {
            params.append("<init-param><param-name>").append(initParams[i]).append("</param-name><param-value>")
                    .append(initParams[i + 1]).append("</param-value></init-param>");
        }
        Files.createDirectories(webappDir.resolve("WEB-INF"));
        Files.writeString(webappDir.resolve("WEB-INF/web.xml"), """
                <?xml version="1.0" encoding="UTF-8"?>
                <web-app xmlns="https://jakarta.ee/xml/ns/jakartaee" version="6.0">
                  <filter>
                    <filter-name>rateLimit</filter-name>
                    <filter-class>dev.ratelimit.servlet.RateLimitFilter</filter-class>
                    %s
                  </filter>
                  <filter-mapping><filter-name>rateLimit</filter-name><url-pattern>/*</url-pattern></filter-mapping>
                  <servlet><servlet-name>app</servlet-name><servlet-class>dev.ratelimit.servlet.AppServlet</servlet-class></servlet>
                  <servlet-mapping><servlet-name>app</servlet-name><url-pattern>/</url-pattern></servlet-mapping>
                </web-app>
                """.formatted(params));
    }
}
