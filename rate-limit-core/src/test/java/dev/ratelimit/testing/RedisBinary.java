package dev.ratelimit.testing;

import redis.embedded.core.ExecutableProvider;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where the {@code redis-server} executable comes from: the one on the PATH, else the one bundled
 * in {@code com.github.codemonstur:embedded-redis} (Redis 6.2, extracted to a temporary file), so the
 * Redis tests run on a machine without Redis installed.
 */
public final class RedisBinary {
    private static volatile Path embedded;

    private RedisBinary() {
    }

    /**
     * {@code redis-server} from the PATH if there is one, else {@link #embedded()}. With
     * {@code -Dratelimit.redis.embedded=true} always the embedded one (to test as on a machine without Redis).
     */
    public static Path find() {
        if (Boolean.getBoolean("ratelimit.redis.embedded")) {
            return embedded();
        }
        Path onPath = fromPath();
        return onPath != null ? onPath : embedded();
    }

    /** The {@code redis-server} on the PATH, or null. */
    public static Path fromPath() {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(dir, "redis-server");
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    /** The binary bundled in embedded-redis for this OS and architecture, extracted once per JVM. */
    public static synchronized Path embedded() {
        if (embedded == null) {
            try {
                File file = ExecutableProvider.newJarResourceProvider().get();
                if (!file.canExecute() && !file.setExecutable(true)) {
                    throw new IOException("cannot make " + file + " executable");
                }
                embedded = file.toPath();
            } catch (IOException e) {
                throw new UncheckedIOException("extracting embedded-redis' redis-server", e);
            }
        }
        return embedded;
    }
}
