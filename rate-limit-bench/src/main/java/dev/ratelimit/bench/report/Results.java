package dev.ratelimit.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A results directory as the benchmark script leaves it: {@code jmh-*.json} (JMH), {@code memory.json},
 * {@code redis-costs.json}, {@code redis-benchmark-c<N>.csv}, {@code http-<variant>.txt} (wrk),
 * {@code profiles/} (JFR), {@code rounds/<part>-r<round>-<cell>.json} (JMH, the target cells measured again
 * in paired rounds), {@code skipped.txt} (one {@code section: reason} line per part not run) and
 * {@code measured.txt} (one {@code part: mode, commit, start} line per part, from the run that measured it: with
 * {@code --only}, parts kept from earlier runs keep their own line).
 */
final class Results {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern ROUND = Pattern.compile("-r(\\d+)-");

    private final Path dir;
    private final List<JmhResult> jmh = new ArrayList<>();
    private final Map<Integer, List<JmhResult>> rounds = new TreeMap<>();
    private final Map<String, String> skipped = new LinkedHashMap<>();
    private final Map<String, String> measured = new LinkedHashMap<>();

    Results(Path dir) {
        this.dir = dir;
        try {
            for (Path file : jsonFiles(dir, "jmh-.*\\.json")) {
                readJmh(file, jmh);
            }
            Path roundsDir = dir.resolve("rounds");
            for (Path file : Files.isDirectory(roundsDir) ? jsonFiles(roundsDir, ".*\\.json") : List.<Path>of()) {
                Matcher m = ROUND.matcher(file.getFileName().toString());
                if (m.find()) {
                    readJmh(file, rounds.computeIfAbsent(Integer.parseInt(m.group(1)), r -> new ArrayList<>()));
                }
            }
            Path skip = dir.resolve("skipped.txt");
            if (Files.exists(skip)) {
                for (String line : Files.readAllLines(skip)) {
                    int colon = line.indexOf(':');
                    if (colon > 0) {
                        // every reason a part gave, not only its last
                        skipped.merge(line.substring(0, colon).trim(), line.substring(colon + 1).trim(), (a, b) -> a + "; " + b);
                    }
                }
            }
            Path runs = dir.resolve("measured.txt");
            if (Files.exists(runs)) {
                for (String line : Files.readAllLines(runs)) {
                    int colon = line.indexOf(':');
                    if (colon > 0) {
                        measured.put(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read results in " + dir, e);
        }
    }

    private static List<Path> jsonFiles(Path dir, String nameRegex) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().matches(nameRegex)).sorted().toList();
        }
    }

    private static void readJmh(Path file, List<JmhResult> into) throws IOException {
        for (JsonNode node : JSON.readTree(file.toFile())) {
            into.add(JmhResult.of(node));
        }
    }

    Path dir() {
        return dir;
    }

    List<JmhResult> jmh(Predicate<JmhResult> filter) {
        return jmh.stream().filter(filter).toList();
    }

    /** The paired rounds' results by round number (empty when none were run). */
    Map<Integer, List<JmhResult>> rounds() {
        return rounds;
    }

    /** The one result matching {@code filter}, if any. */
    Optional<JmhResult> find(Predicate<JmhResult> filter) {
        return jmh.stream().filter(filter).findFirst();
    }

    /** Why {@code section} was not run, if the script said so. */
    Optional<String> skipped(String section) {
        return Optional.ofNullable(skipped.get(section));
    }

    /** Which run measured each part ({@code memory}, {@code redis}, {@code http}): "quick mode, commit 46adefd, started ...". */
    Map<String, String> measured() {
        return measured;
    }

    /** A JSON file of the directory, if present. */
    Optional<JsonNode> json(String name) {
        Path file = dir.resolve(name);
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        try {
            return Optional.of(JSON.readTree(file.toFile()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    /** A text file of the directory, if present. */
    Optional<String> text(String name) {
        Path file = dir.resolve(name);
        try {
            return Files.exists(file) ? Optional.of(Files.readString(file)) : Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }
}
