package dev.ratelimit.servlet;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** What the filter logs while an action runs: slf4j-simple writes to whatever {@code System.err} is at each line. */
final class StderrLog {
    private StderrLog() {
    }

    /** The lines logged while {@code action} ran. */
    static String during(Runnable action) {
        PrintStream stderr = System.err;
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
        try {
            action.run();
        } finally {
            System.setErr(stderr);
        }
        return log.toString(StandardCharsets.UTF_8);
    }
}
