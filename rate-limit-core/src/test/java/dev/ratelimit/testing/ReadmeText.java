package dev.ratelimit.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's copy of a test's example: the code between {@code // README:begin} and {@code // README:end}.
 * Paths are relative to a module's directory (where Surefire runs), the README one level up.
 */
public final class ReadmeText {
    private ReadmeText() {
    }

    /** Asserts that the README shows the example of {@code testSource} line for line (indentation and blank lines aside). */
    public static void assertShows(String testSource) throws IOException {
        String source = Files.readString(Path.of(testSource));
        String example = source.substring(source.indexOf("// README:begin") + "// README:begin".length(), source.indexOf("// README:end"));
        String readme = Files.readString(Path.of("../README.md"));
        assertThat(normalize(readme)).contains(normalize(example));
    }

    private static String normalize(String text) {
        StringBuilder out = new StringBuilder();
        for (String line : text.strip().split("\n")) {
            if (!line.isBlank()) {
                out.append(line.strip()).append('\n');
            }
        }
        return out.toString();
    }
}
