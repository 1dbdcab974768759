package dev.ratelimit.servlet.problem;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class ProblemWriterTest {

    @Test
    void buildsItsSerializerWhenCreatedSoTheFirstRefusalDoesNotPayForIt() {
        ProblemWriter writer = new ProblemWriter();
        int ready = writer.readySerializers();

        writer.json(Problem.rateLimited("free", "scan", "burst", 10, 3));

        assertThat(ready).isPositive();
        assertThat(writer.readySerializers()).isEqualTo(ready);
    }

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
        assertThat(new ObjectMapper().readTree(json).get("detail").asText()).isEqualTo("Clé invalide — réessayez");
    }
}
