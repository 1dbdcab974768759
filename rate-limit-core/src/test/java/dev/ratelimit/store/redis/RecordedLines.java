package dev.ratelimit.store.redis;

import java.util.List;

/** Log lines kept in {@code lines} as {@code "WARN ..."} and {@code "INFO ..."}, in the order they were said. */
record RecordedLines(List<String> lines) implements OutageLog.Lines {
    @Override
    public void warn(String line) {
        lines.add("WARN " + line);
    }

    @Override
    public void info(String line) {
        lines.add("INFO " + line);
    }
}
