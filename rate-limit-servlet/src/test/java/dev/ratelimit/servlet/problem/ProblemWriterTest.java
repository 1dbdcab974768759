package dev.ratelimit.servlet.problem;

import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.CharRange;
import net.jqwik.api.constraints.Chars;
import net.jqwik.api.constraints.WithNull;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class ProblemWriterTest {
    /** What the writer replaced: Jackson, with non-ASCII characters escaped. */
    private static final ObjectMapper JACKSON = JsonMapper.builder().enable(JsonWriteFeature.ESCAPE_NON_ASCII).build();

    @Test
    void writesAsciiOnlyJsonSoAWriterOfAnyCharsetSendsTheSameBytes() throws Exception {
        // A refusal on a dispatch after the application took its writer goes through that writer, whose
        // charset (often ISO-8859-1) was fixed before: a custom resolver's detail must survive it.
        Problem problem = Problem.invalidClient("invalid_key", "Clé invalide — réessayez");

        byte[] json = new ProblemWriter().json(problem);

        for (byte b : json) {
            assertThat(b).isBetween((byte) 0x20, (byte) 0x7e);
        }
        assertThat(new String(json, StandardCharsets.ISO_8859_1)).isEqualTo(new String(json, StandardCharsets.UTF_8));
        assertThat(JACKSON.readTree(json).get("detail").asText()).isEqualTo("Clé invalide — réessayez");
    }

    @Test
    void writesTheRefusalTheReadmeShows() {
        byte[] json = new ProblemWriter().json(Problem.rateLimited("free", "scan", "scan", 10, 1));

        assertThat(new String(json, StandardCharsets.US_ASCII)).isEqualTo("{\"type\":\"urn:dev-ratelimit:rate-limited\","
                + "\"title\":\"Too Many Requests\",\"status\":429,\"detail\":\"Too many requests to scan for tier free: 10 allowed; "
                + "retry after 1 s.\",\"error\":\"rate_limited\",\"retry_after\":1,\"tier\":\"free\",\"endpoint\":\"scan\","
                + "\"policy\":\"scan\",\"limit\":10}");
    }

    @Property(tries = 300)
    void anyProblemReadsBackAsItselfFromVisibleAscii(@ForAll @WithNull(0.2) String type, @ForAll String title, @ForAll int status,
                                                     @ForAll @WithNull(0.2) String detail, @ForAll @WithNull(0.2) String error,
                                                     @ForAll @WithNull(0.3) Long retryAfter, @ForAll @WithNull(0.3) String tier,
                                                     @ForAll @WithNull(0.3) String policy, @ForAll @WithNull(0.3) Long limit) throws Exception {
        Problem problem = new Problem(type, title, status, detail, error, retryAfter, tier, tier, policy, limit);

        byte[] json = new ProblemWriter().json(problem);

        for (byte b : json) {
            assertThat(b).isBetween((byte) 0x20, (byte) 0x7e);
        }
        JsonNode read = JACKSON.readTree(json);
        assertThat(JACKSON.treeToValue(read, Problem.class)).isEqualTo(problem);
        assertThat(read.size()).as("null members left out").isEqualTo(JACKSON.readTree(JACKSON.writeValueAsBytes(problem)).size());
    }

    @Property(tries = 300)
    void writesTheSameBytesJacksonWroteForAnyTextWithoutDel(
            @ForAll @Chars({'"', '\\', '\n', '\t', '\u0001', '\u001f', 'é', '—', '\ud83d', '\ude00'}) @CharRange(from = ' ', to = '~') String detail,
            @ForAll @WithNull(0.3) Long retryAfter) throws Exception {
        Problem problem = new Problem(Problem.RATE_LIMITED, "Too Many Requests", 429, detail, "rate_limited", retryAfter,
                "free", "scan", null, 10L);

        assertThat(new ProblemWriter().json(problem)).isEqualTo(JACKSON.writeValueAsBytes(problem));
    }
}
