package dev.ratelimit.example.api;

import dev.ratelimit.StoreHealth;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * {@code GET /health}: {@code 200 {"status":"UP","store":"up"}} while the application serves
 * requests, with the rate-limit store's health ({@code up}, {@code degraded}, {@code circuit_open})
 * beside it when the app knows its store (the executable jar; the WAR's filter keeps its store to
 * itself, so there it is {@code {"status":"UP"}}). The status stays {@code UP} whatever the store's health: every instance shares the
 * store, so taking one out of rotation would not help, and the failure mode decides meanwhile. The
 * store's health changes when a decision calls it (see the README), and is {@code degraded} from a
 * failed connection check at start-up until Redis answers. Never rate limited: it is
 * outside the filter's {@code /api/*} mapping and on the bundled allowlist. Any other method is a
 * 405 ({@link GetOnlyServlet}).
 */
public class HealthServlet extends GetOnlyServlet {
    private static final long serialVersionUID = 1L;
    /** Null in the WAR, which creates this servlet from {@code web.xml}. */
    private final transient Supplier<StoreHealth> store;

    /** For {@code web.xml}: reports the status alone. */
    public HealthServlet() {
        this(null);
    }

    /** A health endpoint that reports {@code store}'s health too. */
    public HealthServlet(Supplier<StoreHealth> store) {
        this.store = store;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String body = store == null ? "{\"status\":\"UP\"}"
                : "{\"status\":\"UP\",\"store\":\"" + store.get().name().toLowerCase(Locale.ROOT) + "\"}";
        ApiServlet.json(response, HttpServletResponse.SC_OK, body);
    }
}
