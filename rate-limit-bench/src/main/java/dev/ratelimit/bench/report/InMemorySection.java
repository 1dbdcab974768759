package dev.ratelimit.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ratelimit.bench.KeyShape;
import dev.ratelimit.bench.memory.ContenderKind;
import dev.ratelimit.bench.memory.KeyMode;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.Predicate;

/** The in-memory tables: decisions per second, ratios, allocation, rejected shares, bytes per client. */
final class InMemorySection {
    static final String BENCHMARK = "InMemoryBenchmark.decide";

    private final Results results;

    InMemorySection(Results results) {
        this.results = results;
    }

    /** Throughput of one contender, or NaN. */
    double score(ContenderKind kind, KeyShape shape, KeyMode keys, int threads) {
        return result(kind, shape, keys, threads).map(JmhResult::score).orElse(Double.NaN);
    }

    Optional<JmhResult> result(ContenderKind kind, KeyShape shape, KeyMode keys, int threads) {
        return results.find(cell(kind, shape, keys, threads));
    }

    /** {@code ours} over {@code peer} at 1 thread in each paired round, if rounds measured them. */
    Optional<RoundRatios> paired(ContenderKind ours, ContenderKind peer, KeyShape shape, KeyMode keys) {
        return RoundRatios.of(results.rounds(), cell(ours, shape, keys, 1), cell(peer, shape, keys, 1));
    }

    private static Predicate<JmhResult> cell(ContenderKind kind, KeyShape shape, KeyMode keys, int threads) {
        return r -> r.benchmark().equals(BENCHMARK) && r.threads() == threads
                && r.param("contender").equals(kind.name()) && r.param("shape").equals(shape.name())
                && r.param("keys").equals(keys.name());
    }

    List<KeyShape> shapes() {
        return List.of(KeyShape.values()).stream()
                .filter(s -> !results.jmh(r -> r.benchmark().equals(BENCHMARK) && r.param("shape").equals(s.name())).isEmpty())
                .toList();
    }

    void write(Markdown md) {
        md.heading(2, "In memory: decisions per second");
        List<JmhResult> all = results.jmh(r -> r.benchmark().equals(BENCHMARK));
        if (all.isEmpty()) {
            md.paragraph("Not run" + results.skipped("in-memory").map(s -> ": " + s).orElse("."));
            return;
        }
        md.paragraph("Per-key decisions including the key lookup, one JVM, every key tracked before the run "
                + "(equivalent limits keep every decision allowed; see docs/benchmarks.md). Millions (M) or thousands (k) "
                + "of decisions per second, with the 99.9% error of the mean where JMH gives one. "
                + "Shapes: one hot key; 100k keys uniform; 1M keys uniform; 1M keys Zipf (s = 1).");
        List<KeyShape> shapes = shapes();
        for (int threads : List.of(1, 2)) {
            for (KeyMode keys : KeyMode.values()) {
                List<ContenderKind> present = List.of(ContenderKind.values()).stream()
                        .filter(k -> shapes.stream().anyMatch(s -> result(k, s, keys, threads).isPresent())).toList();
                if (present.isEmpty()) {
                    continue;
                }
                md.heading(3, threads + (threads == 1 ? " thread" : " threads") + ", "
                        + (keys == KeyMode.FRESH ? "fresh key string per decision" : "pre-generated key strings"));
                Markdown.Table table = new Markdown.Table(header("Contender", shapes));
                for (ContenderKind kind : present) {
                    List<String> row = new ArrayList<>(List.of(kind.label()));
                    for (KeyShape shape : shapes) {
                        row.add(result(kind, shape, keys, threads).map(InMemorySection::cell).orElse(""));
                    }
                    table.row(row);
                }
                md.table(table);
                Markdown.Table ratios = new Markdown.Table(header("Ratio", shapes));
                for (ContenderKind ours : present) {
                    if (!ours.ours()) {
                        continue;
                    }
                    for (ContenderKind peer : List.of(ContenderKind.BUCKET4J, ContenderKind.CHM_GET_FLOOR)) {
                        List<String> row = new ArrayList<>(List.of(ours.label().replace("ours: ", "") + " / "
                                + (peer == ContenderKind.BUCKET4J ? "Bucket4j" : "floor")));
                        for (KeyShape shape : shapes) {
                            row.add(Markdown.ratio(score(ours, shape, keys, threads) / score(peer, shape, keys, threads)));
                        }
                        ratios.row(row);
                    }
                }
                if (!ratios.isEmpty()) {
                    md.table(ratios);
                }
            }
        }
        writeAllocation(md, shapes);
        writeRejected(md, all);
        writeFootprint(md);
    }

    private void writeAllocation(Markdown md, List<KeyShape> shapes) {
        md.heading(3, "Allocation per decision (1 thread, bytes, from -prof gc)");
        md.paragraph("One `Decision` is 56 bytes (12-byte header, 3 compressed references, 4 longs). With fresh keys every "
                + "contender also pays for the key string it is handed: Guava, whose decision allocates nothing, shows that cost "
                + "alone; the floor's fresh-key figure can be lower, where the JIT removes the intermediate raw-key string.");
        List<String> header = new ArrayList<>(List.of("Contender"));
        List<KeyMode> modes = new ArrayList<>();
        for (KeyMode keys : KeyMode.values()) {
            if (shapes.stream().anyMatch(shape -> List.of(ContenderKind.values()).stream()
                    .anyMatch(kind -> result(kind, shape, keys, 1).isPresent()))) {
                modes.add(keys);
                for (KeyShape shape : shapes) {
                    header.add(shortName(shape) + (keys == KeyMode.FRESH ? " fresh" : " pre-gen."));
                }
            }
        }
        Markdown.Table table = new Markdown.Table(header);
        for (ContenderKind kind : ContenderKind.values()) {
            List<String> row = new ArrayList<>(List.of(kind.label()));
            boolean any = false;
            for (KeyMode keys : modes) {
                for (KeyShape shape : shapes) {
                    Optional<JmhResult> r = result(kind, shape, keys, 1);
                    any |= r.isPresent();
                    row.add(r.map(x -> Markdown.number(x.allocNorm())).orElse(""));
                }
            }
            if (any) {
                table.row(row);
            }
        }
        md.table(table);
    }

    private void writeRejected(Markdown md, List<JmhResult> all) {
        Markdown.Table table = new Markdown.Table(List.of("Contender", "Shape", "Threads", "Keys", "Rejected share"));
        for (JmhResult r : all) {
            if (r.rejectedShare() > 0.001) {
                table.row(List.of(ContenderKind.valueOf(r.param("contender")).label(), r.param("shape"),
                        Integer.toString(r.threads()), r.param("keys"), Markdown.percent(r.rejectedShare())));
            }
        }
        md.heading(3, "Rejected decisions");
        md.paragraph(table.isEmpty() ? "None: every measured decision was allowed."
                : "Every other measured decision was allowed. The sliding window log keeps one timestamp per admitted "
                + "request, so its limit (1,000 per hour) is reached by busy keys and their decisions are rejections from then on.");
        if (!table.isEmpty()) {
            md.table(table);
        }
    }

    private void writeFootprint(Markdown md) {
        md.heading(2, "In memory: bytes per tracked client");
        Optional<JsonNode> memory = results.json("memory.json");
        if (memory.isEmpty()) {
            md.paragraph("Not run" + results.skipped("memory").map(s -> ": " + s).orElse("."));
            return;
        }
        md.paragraph("Heap in use after full GCs, before and after one request from each client, divided by the clients "
                + "tracked. Key strings are built per request and dropped, as in a servlet: containers that keep the key "
                + "(Caffeine, the map) are charged for it (about 64 bytes for `apikey:sk-pro-1234abcd`); ours keeps a 56-bit "
                + "hash. The sliding window log adds 8 bytes per further request in its window, up to its limit.");
        Markdown.Table table = new Markdown.Table(List.of("Contender", "Clients", "Tracked", "Bytes per client"));
        for (JsonNode n : memory.get()) {
            table.row(List.of(n.path("label").asText(), String.format("%,d", n.path("clients").asLong()),
                    String.format("%,d", n.path("tracked").asLong()), Markdown.number(n.path("bytesPerClient").asDouble())));
        }
        md.table(table);
    }

    /** Bytes per client of one contender from memory.json. */
    OptionalDouble bytesPerClient(ContenderKind kind) {
        Optional<JsonNode> memory = results.json("memory.json");
        if (memory.isPresent()) {
            for (JsonNode n : memory.get()) {
                if (n.path("contender").asText().equals(kind.name())) {
                    return OptionalDouble.of(n.path("bytesPerClient").asDouble());
                }
            }
        }
        return OptionalDouble.empty();
    }

    private static List<String> header(String first, List<KeyShape> shapes) {
        List<String> header = new ArrayList<>(List.of(first));
        shapes.forEach(s -> header.add(shortName(s)));
        return header;
    }

    static String shortName(KeyShape shape) {
        return switch (shape) {
            case HOT_1 -> "hot key";
            case UNIFORM_100K -> "100k uniform";
            case UNIFORM_1M -> "1M uniform";
            case ZIPF_1M -> "1M Zipf";
        };
    }

    private static String cell(JmhResult r) {
        String s = Markdown.rate(r.score());
        if (!Double.isNaN(r.error()) && r.score() > 0) {
            s += " ±" + Markdown.percent(r.error() / r.score());
        }
        return s;
    }
}
