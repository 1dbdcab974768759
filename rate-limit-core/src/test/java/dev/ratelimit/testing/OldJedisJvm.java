package dev.ratelimit.testing;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a main class in a JVM whose class path is this test's with Jedis 7.5.3 in place of Jedis 8, as
 * Spring Boot's dependency management can arrange it. The module's build copies that jar to
 * {@code target/old-jedis/jedis-old.jar} (maven-dependency-plugin, generate-test-resources).
 */
public final class OldJedisJvm {
    private OldJedisJvm() {
    }

    /** What {@code main} printed (stdout and stderr together); fails when it does not end within a minute. */
    public static String run(Class<?> main) throws IOException, InterruptedException {
        Path old = Path.of("target", "old-jedis", "jedis-old.jar").toAbsolutePath();
        if (!Files.exists(old)) {
            throw new IllegalStateException(old + " is missing: the module's build copies it in generate-test-resources");
        }
        List<String> classPath = new ArrayList<>();
        boolean swapped = false;
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            boolean jedis = Path.of(entry).getFileName().toString().matches("jedis-\\d.*\\.jar");
            classPath.add(jedis ? old.toString() : entry);
            swapped |= jedis;
        }
        if (!swapped) {
            throw new IllegalStateException("no Jedis jar on the test class path: " + System.getProperty("java.class.path"));
        }
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", String.join(File.pathSeparator, classPath), main.getName()).redirectErrorStream(true).start();
        if (!child.waitFor(60, TimeUnit.SECONDS)) {
            child.destroyForcibly();
            throw new IllegalStateException(main.getName() + " did not end within a minute");
        }
        return new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
}
