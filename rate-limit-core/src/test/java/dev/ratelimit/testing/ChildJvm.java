package dev.ratelimit.testing;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Runs a main class in a JVM whose class path is this test's with some jars changed, as a user's
 * build can arrange it: Jedis 7.5.3 in place of Jedis 8 ({@link #withOldJedis}, as Spring Boot's
 * dependency management picks an older one), or an optional dependency left out ({@link #without}).
 */
public final class ChildJvm {
    private ChildJvm() {
    }

    /**
     * What {@code main} printed with Jedis 7.5.3 in place of Jedis 8. The module's build copies that jar
     * to {@code target/old-jedis/jedis-old.jar} (maven-dependency-plugin, generate-test-resources).
     */
    public static String withOldJedis(Class<?> main) throws IOException, InterruptedException {
        Path old = Path.of("target", "old-jedis", "jedis-old.jar").toAbsolutePath();
        if (!Files.exists(old)) {
            throw new IllegalStateException(old + " is missing: the module's build copies it in generate-test-resources");
        }
        List<String> classPath = new ArrayList<>();
        for (String entry : classPath()) {
            classPath.add(isJar(entry, "jedis-\\d.*") ? old.toString() : entry);
        }
        if (classPath.equals(classPath())) {
            throw new IllegalStateException("no Jedis jar on the test class path: " + classPath);
        }
        return run(main, classPath);
    }

    /** What {@code main} printed without the jars whose file names match {@code jarName} (a regex). */
    public static String without(String jarName, Class<?> main) throws IOException, InterruptedException {
        Predicate<String> dropped = entry -> isJar(entry, jarName);
        if (classPath().stream().noneMatch(dropped)) {
            throw new IllegalStateException("no jar named " + jarName + " on the test class path: " + classPath());
        }
        return run(main, classPath().stream().filter(dropped.negate()).toList());
    }

    private static List<String> classPath() {
        return List.of(System.getProperty("java.class.path").split(File.pathSeparator));
    }

    private static boolean isJar(String entry, String name) {
        return Path.of(entry).getFileName().toString().matches(name + "\\.jar");
    }

    /** What {@code main} printed (stdout and stderr together); fails when it does not end within a minute. */
    private static String run(Class<?> main, List<String> classPath) throws IOException, InterruptedException {
        Path output = Files.createTempFile("child-jvm", ".log");
        try {
            Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", String.join(File.pathSeparator, classPath), main.getName())
                    .redirectErrorStream(true).redirectOutput(output.toFile()).start();
            if (!child.waitFor(60, TimeUnit.SECONDS)) {
                child.destroyForcibly();
                throw new IllegalStateException(main.getName() + " did not end within a minute");
            }
            return Files.readString(output, StandardCharsets.UTF_8);
        } finally {
            Files.deleteIfExists(output);
        }
    }
}
