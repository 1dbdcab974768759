package dev.ratelimit.servlet;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;

/**
 * The application behind the filter in HTTP tests. Answers {@code 200 ok <method> <path>}, or with
 * query parameters: {@code forward=/p} and {@code include=/p} dispatch to {@code /p}, {@code error=404}
 * sends an error (the error page is a limited path), {@code async=1} re-dispatches once asynchronously
 * ({@code async=/p} to {@code /p}), {@code throw=1} fails with a 500 of the application's own; {@code writer=1}
 * first writes a line through the response's writer, as a servlet that writes text may before it decides to dispatch.
 */
public class AppServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws ServletException, IOException {
        if (req.getDispatcherType() == DispatcherType.REQUEST) {
            if (req.getParameter("writer") != null) {
                resp.getWriter().println("working");
            }
            if (req.getParameter("forward") != null) {
                req.getRequestDispatcher(req.getParameter("forward")).forward(req, resp);
                return;
            }
            if (req.getParameter("include") != null) {
                req.getRequestDispatcher(req.getParameter("include")).include(req, resp);
                resp.getWriter().write("included");
                return;
            }
            if (req.getParameter("error") != null) {
                resp.sendError(Integer.parseInt(req.getParameter("error")));
                return;
            }
            if (req.getParameter("async") != null) {
                AsyncContext async = req.startAsync();
                if (req.getParameter("async").startsWith("/")) {
                    async.dispatch(req.getParameter("async"));
                } else {
                    async.dispatch();
                }
                return;
            }
            if (req.getParameter("throw") != null) {
                throw new ServletException("the application failed");
            }
        }
        resp.setContentType("text/plain");
        resp.getWriter().write("ok " + req.getMethod() + " " + req.getDispatcherType() + " " + req.getServletPath()
                + (req.getPathInfo() == null ? "" : req.getPathInfo()));
    }
}
