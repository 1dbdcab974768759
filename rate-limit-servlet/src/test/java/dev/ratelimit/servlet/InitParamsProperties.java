package dev.ratelimit.servlet;

import jakarta.servlet.ServletException;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Generated init-params, alone and with a Redis store (never contacted: nothing is decided): the
 * filter's {@code init} either succeeds or fails with a {@link ServletException} that names the
 * filter; never with any other exception.
 */
class InitParamsProperties {
    private static final List<String> DURATIONS = List.of("100ms", "1ms", "60s", "61s", "0ms", "1us", "999us", "-1s", "PT-1S",
            "P1D", "1.5s", "999999999999d", "999999999999h", "P99999999999999D", "PT-99999999999999H", "PT2562047788015215H", "");
    private static final Map<String, List<String>> VALUES = new LinkedHashMap<>();

    static {
        VALUES.put("config", List.of("classpath:configs/webxml-limits.json", "classpath:configs/bad-capacity.json", "classpath:",
                "classpath:/", "", "/", "/dev/null", "classpath:none.json", "a\u0000b"));
        VALUES.put("max-keys-per-limit", List.of("1", "0", "-1", "2147483647", "2147483648", "99999999999", "+5", "1e3", " 7 "));
        VALUES.put("failure-mode", List.of("FAIL_OPEN", "fail-closed", "local_fallback", "LOCAL-FALLBACK", "", "open"));
        VALUES.put("fallback-share", List.of("1", "0.5", "0", "-0", "NaN", "Infinity", "1e-320", "0x1p-3", "1.0000001", ""));
        VALUES.put("redis-key-prefix", List.of("rl:", "", "a b", "{x}", "x".repeat(65), "\u00fc"));
        VALUES.put("redis-timeout", DURATIONS);
        VALUES.put("redis-client-key-secret", List.of("0123456789abcdef", "short", ""));
        VALUES.put("redis-password-file", List.of("/nonexistent/redis-password", "", "a\u0000b", "/dev/null"));
        VALUES.put("trusted-proxies", List.of("10.0.0.0/8", ",", " , ", "10.0.0.0/8,", ",10.0.0.0/8", "10.0.0.0/33", "::/0",
                "::ffff:10.0.0.0/95", "10.0.0.0/\u0661", "localhost", "1.2.3.4/-1", "1.2.3.4/999999999999"));
        VALUES.put("forwarded-header", List.of("X-Forwarded-For", "forwarded", "", "X-Real-IP"));
        VALUES.put("api-key-header", List.of("X-API-Key", "", " ", "X API", "X-\u00fc", "Authorization"));
        VALUES.put("max-api-key-length", List.of("1", "8192", "8193", "0", "-1", "99999999999", ""));
        VALUES.put("ipv6-prefix-length", List.of("64", "32", "128", "31", "129", "0", "-64", "/64", ""));
        VALUES.put("header-style", List.of("x", "IETF", "both", "", "none"));
        VALUES.put("shadow", List.of("true", "FALSE", "", "yes"));
        VALUES.put("dispatcher-types", List.of("REQUEST", "request, forward", ",", " , ", "REQUEST,", ",REQUEST", "", "NOPE",
                "REQUEST,,ERROR"));
    }

    @Provide
    Arbitrary<Map<String, String>> params() {
        Arbitrary<String> names = Arbitraries.of(List.copyOf(VALUES.keySet()));
        Arbitrary<Map.Entry<String, String>> entry = names.flatMap(name -> Arbitraries.frequencyOf(
                        Tuple.of(4, Arbitraries.of(VALUES.get(name))),
                        Tuple.of(1, Arbitraries.strings().ofMaxLength(12)))
                .map(value -> Map.entry(name, value)));
        Arbitrary<String> store = Arbitraries.of("memory", "redis://127.0.0.1:1", "redis-cluster://127.0.0.1:1,127.0.0.1:2",
                "redis-sentinel://127.0.0.1:1/mymaster", "rediss://u:p@h:1/0", "redis://h%zz:1", "redis://h:1/99999999999", "");
        return Combinators.combine(entry.list().ofMinSize(1).ofMaxSize(4), store).as((entries, s) -> {
            Map<String, String> params = new LinkedHashMap<>();
            params.put("store", s);
            entries.forEach(e -> params.put(e.getKey(), e.getValue()));
            return params;
        });
    }

    @Property(tries = 300)
    void initSucceedsOrFailsWithAServletException(@ForAll("params") Map<String, String> params) {
        List<String> flat = new ArrayList<>();
        params.forEach((name, value) -> {
            flat.add(name);
            flat.add(value);
        });
        RateLimitFilter filter = new RateLimitFilter();
        try {
            filter.init(new MapFilterConfig(flat.toArray(new String[0])));
        } catch (ServletException e) {
            assertThat(e.getMessage()).startsWith("RateLimitFilter rateLimit: ");
        } finally {
            filter.destroy();
        }
    }
}
