package dev.ratelimit.reliability;

import dev.ratelimit.Clock;
import dev.ratelimit.example.server.EmbeddedExample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Instances of the example app in this JVM (as {@code java -jar} builds them, on free ports),
 * started together and closed together, even when one fails to start.
 */
final class Apps implements AutoCloseable {
    private final List<EmbeddedExample> instances;

    private Apps(List<EmbeddedExample> instances) {
        this.instances = instances;
    }

    /** {@code count} instances with the settings {@code env} (e.g. REDIS_URL, RATE_LIMIT_CONFIG). */
    static Apps start(int count, Map<String, String> env) {
        List<EmbeddedExample> started = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                started.add(EmbeddedExample.start(env, Clock.system()));
            }
            return new Apps(started);
        } catch (RuntimeException | Error e) {
            started.forEach(EmbeddedExample::close);
            throw e;
        }
    }

    /** Settings: {@code REDIS_URL} plus name/value pairs. */
    static Map<String, String> env(String redisUrl, String... pairs) {
        Map<String, String> env = new HashMap<>();
        if (redisUrl != null) {
            env.put("REDIS_URL", redisUrl);
        }
        for (int i = 0; i < pairs.length; i += 2) {
            env.put(pairs[i], pairs[i + 1]);
        }
        return env;
    }

    /** Writes {@code json} (a rate-limit configuration) to a file under target/reliability and returns its path. */
    static String config(String name, String json) {
        try {
            Path dir = Path.of(System.getProperty("basedir", "."), "target", "reliability");
            Files.createDirectories(dir);
            Path file = dir.resolve(name + ".json");
            Files.writeString(file, json);
            return file.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Sends {@code path} from 8 threads to every instance for a second (JIT, connection pools), on
     * API keys of its own, so that what a test measures next is not the warm-up.
     */
    Apps warmUp(String path) {
        List<URI> uris = uris();
        try (ClosedLoad load = ClosedLoad.start(uris, 8, (thread, n) -> new ClosedLoad.Request((int) (n % uris.size()), path,
                "sk-warm-up-" + thread))) {
            load.runFor(Duration.ofSeconds(1));
        }
        return this;
    }

    EmbeddedExample get(int index) {
        return instances.get(index);
    }

    List<URI> uris() {
        return instances.stream().map(EmbeddedExample::uri).toList();
    }

    @Override
    public void close() {
        instances.forEach(EmbeddedExample::close);
    }
}
