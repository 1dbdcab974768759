package dev.ratelimit.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ratelimit.Fixtures;
import dev.ratelimit.InvalidConfigurationException;
import dev.ratelimit.Limit;
import dev.ratelimit.ManualClock;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.store.memory.MemoryStore;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.statistics.Statistics;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Mutated versions of the bundled configuration (wrong types, nulls, extreme numbers, odd strings and
 * durations, unknown or missing fields, duplicate keys, deep nesting, trailing content): parsing either
 * succeeds, and then every limit can be bound to a store and decide, or fails with an
 * {@link InvalidConfigurationException} that names where; never with any other exception.
 */
class ConfigJsonProperties {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final String BASE = bundled();

    enum Op { REPLACE, REMOVE, ADD_FIELD, WRAP_IN_ARRAY, RENAME_KEY }

    /** A change at the {@code target}-th value of the tree (depth first, modulo their number). */
    record Mutation(int target, Op op, JsonNode value, String key) {
        @Override
        public String toString() {
            String v = String.valueOf(value);
            return op + "@" + target + "(" + (v.length() > 60 ? v.substring(0, 60) + "..." : v) + ", " + key + ")";
        }
    }

    private static String bundled() {
        try (InputStream in = ConfigJsonProperties.class.getClassLoader().getResourceAsStream(RateLimitConfig.DEFAULTS_RESOURCE)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Provide
    Arbitrary<String> durations() {
        Arbitrary<String> number = Arbitraries.oneOf(Arbitraries.longs().between(0, 1000).map(String::valueOf),
                Arbitraries.of("999999999999", "999999999999999", "9223372036854775807", "1.5", "1e3", "-1", "0", "01", "\u0661"));
        Arbitrary<String> unit = Arbitraries.of("us", "ms", "s", "m", "h", "d", "S", "D", "", " s", "min", "µs");
        Arbitrary<String> iso = Arbitraries.of("P1D", "PT1S", "PT1.5S", "PT0.0000001S", "PT-1S", "P-1D", "P99999999999999D",
                "PT9999999999999999H", "PT2562047788015215H", "P106751991167300D", "PT0.000001S", "P1DT-24H1S", "P", "PT",
                "-PT1S", "PT1M-60S", "P400D", "P401D", "PT9600H", "PT9600H0.000001S");
        return Arbitraries.oneOf(Combinators.combine(number, unit).as(String::concat), iso,
                Arbitraries.strings().ofMaxLength(8));
    }

    @Provide
    Arbitrary<JsonNode> values() {
        Arbitrary<JsonNode> scalars = Arbitraries.of(
                NODES.nullNode(), NODES.booleanNode(true), NODES.booleanNode(false),
                NODES.numberNode(0), NODES.numberNode(-1), NODES.numberNode(1), NODES.numberNode(2), NODES.numberNode(6),
                NODES.numberNode(10_000), NODES.numberNode(10_001), NODES.numberNode(1L << 53), NODES.numberNode((1L << 53) + 1),
                NODES.numberNode(Long.MAX_VALUE), NODES.numberNode(Long.MIN_VALUE),
                NODES.numberNode(new BigInteger("99999999999999999999999")), NODES.numberNode(1.5), NODES.numberNode(-0.0),
                NODES.numberNode(1e308), NODES.numberNode(10.0),
                NODES.textNode(""), NODES.textNode(" "), NODES.textNode("\u0000"), NODES.textNode("\u00fc\u00df"),
                NODES.textNode("\ud83d\udca5"), NODES.textNode("x".repeat(5000)), NODES.textNode("GET"), NODES.textNode("get"),
                NODES.textNode("*"), NODES.textNode("FROB"), NODES.textNode("/api/*"), NODES.textNode("/api/**"),
                NODES.textNode("/api/scan/"), NODES.textNode("api"), NODES.textNode("/a/*/b"), NODES.textNode("free"),
                NODES.textNode("pro"), NODES.textNode("enterprise"), NODES.textNode("gold"), NODES.textNode("scan"),
                NODES.textNode("login"), NODES.textNode("default"), NODES.textNode("unlimited"), NODES.textNode("token_bucket"),
                NODES.textNode("fixed_window"), NODES.textNode("sliding_window_log"), NODES.textNode("sliding_window_counter"),
                NODES.textNode("gcra"), NODES.textNode("10.0.0.0/8"), NODES.textNode("ip:10.0.0.7"),
                NODES.objectNode(), NODES.arrayNode());
        Arbitrary<JsonNode> durations = durations().map(NODES::textNode);
        Arbitrary<JsonNode> deep = Arbitraries.integers().between(1, 900).map(depth -> {
            JsonNode node = NODES.numberNode(1);
            for (int i = 0; i < depth; i++) {
                node = i % 2 == 0 ? NODES.arrayNode().add(node) : NODES.objectNode().set("a", node);
            }
            return node;
        });
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(6, scalars),
                net.jqwik.api.Tuple.of(3, durations),
                net.jqwik.api.Tuple.of(3, policies()),
                net.jqwik.api.Tuple.of(1, deep));
    }

    /** Random but mostly well-formed policies, with numbers and durations at their edges. */
    private Arbitrary<JsonNode> policies() {
        return policies(true);
    }

    /** Policies with numbers and durations at the edges of their ranges, and beyond them when {@code invalidToo}. */
    private Arbitrary<JsonNode> policies(boolean invalidToo) {
        Arbitrary<Long> valid = Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(4, Arbitraries.longs().between(1, 20)),
                net.jqwik.api.Tuple.of(1, Arbitraries.of(10_000L, 1L << 20, 1L << 26, (1L << 53) - 1, 1L << 53, Long.MAX_VALUE / 3, Long.MAX_VALUE)));
        Arbitrary<Long> n = invalidToo ? Arbitraries.oneOf(valid, Arbitraries.of(0L, -1L, 10_001L, Long.MIN_VALUE)) : valid;
        Arbitrary<String> validDuration = Arbitraries.of("1us", "3us", "1ms", "1s", "7s", "1m", "1h", "1d", "400d", "9600h", "PT0.5S");
        Arbitrary<String> d = invalidToo ? Arbitraries.oneOf(validDuration, durations()) : validDuration;
        Arbitrary<JsonNode> policy = Combinators.combine(
                Arbitraries.of("token_bucket", "fixed_window", "sliding_window_log", "sliding_window_counter", "gcra"),
                n, n, d).as((algorithm, a, b, duration) -> {
                    ObjectNode p = NODES.objectNode().put("algorithm", algorithm);
                    switch (algorithm) {
                        case "token_bucket" -> p.put("capacity", a).put("refillTokens", b).put("refillPeriod", duration);
                        case "gcra" -> p.put("rate", a).put("period", duration).put("burst", b);
                        default -> p.put("limit", a).put("window", duration);
                    }
                    return p;
                });
        return Arbitraries.oneOf(policy, policy.list().ofMinSize(1).ofMaxSize(9).map(list -> {
            ArrayNode array = NODES.arrayNode();
            list.forEach(array::add);
            return array;
        }));
    }

    @Provide
    Arbitrary<List<Mutation>> mutations() {
        Arbitrary<String> keys = Arbitraries.of("x", "capacity", "limit", "window", "cost", "shadow", "method", "path",
                "name", "burst", "defaultTier", "tiers", "free", "scan", "unknown", "\u00fc", "a b", "k".repeat(100));
        return Combinators.combine(Arbitraries.integers().between(0, 10_000), Arbitraries.of(Op.class), values(), keys)
                .as(Mutation::new).list().ofMinSize(1).ofMaxSize(3);
    }

    @Property(tries = 400)
    void aMutatedConfigParsesOrFailsNamingWhere(@ForAll("mutations") List<Mutation> mutations,
                                                @ForAll("textual") TextEdit edit) throws IOException {
        ObjectNode root = (ObjectNode) MAPPER.readTree(BASE);
        for (Mutation m : mutations) {
            apply(root, m);
        }
        String json = edit.apply(MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(root));
        checkParsesOrFailsCleanly(json);
    }

    /**
     * Every policy slot (each tier's endpoints, the unmatched limit) and each endpoint's cost drawn at random,
     * mostly valid: whatever parses binds to a store and decides, a configured cost included.
     */
    @Property(tries = 300, edgeCases = EdgeCasesMode.FIRST)
    void randomPoliciesInEverySlotParseAndDecideOrFailNamingWhere(@ForAll("slots") List<JsonNode> slots,
                                                                 @ForAll("costs") List<Long> costs) throws IOException {
        ObjectNode root = (ObjectNode) MAPPER.readTree(BASE);
        int next = 0;
        for (JsonNode tier : List.copyOf(iterable(root.get("tiers")))) {
            for (String endpoint : List.of("scan", "reports", "login")) {
                ((ObjectNode) tier).set(endpoint, slots.get(next++ % slots.size()).deepCopy());
            }
        }
        root.set("unmatched", slots.get(next % slots.size()).deepCopy());
        JsonNode endpoints = root.get("endpoints");
        for (int i = 0; i < endpoints.size(); i++) {
            ((ObjectNode) endpoints.get(i)).put("cost", costs.get(i % costs.size()));
        }
        checkParsesOrFailsCleanly(MAPPER.writeValueAsString(root));
    }

    private static List<JsonNode> iterable(JsonNode node) {
        List<JsonNode> out = new ArrayList<>();
        node.elements().forEachRemaining(out::add);
        return out;
    }

    @Provide
    Arbitrary<List<JsonNode>> slots() {
        return policies(false).list().ofMinSize(1).ofMaxSize(10);
    }

    @Provide
    Arbitrary<List<Long>> costs() {
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(5, Arbitraries.longs().between(1, 3)),
                        net.jqwik.api.Tuple.of(1, Arbitraries.of(10L, 10_000L, 1L << 26, 1L << 53)))
                .list().ofMinSize(1).ofMaxSize(3);
    }

    /** Text-level changes a tree cannot express: duplicate keys, truncation, stray characters. */
    record TextEdit(int kind, int at) {
        String apply(String json) {
            int pos = json.isEmpty() ? 0 : Math.floorMod(at, json.length());
            return switch (kind) {
                case 1 -> {
                    int brace = json.indexOf("{\n", pos);
                    yield brace < 0 ? json : json.substring(0, brace + 1) + "\"dup\": 1, \"dup\": 2," + json.substring(brace + 1);
                }
                case 2 -> json.substring(0, pos);
                case 3 -> json.substring(0, pos) + "\u0000" + json.substring(pos);
                case 4 -> json.substring(0, pos) + "}" + json.substring(pos);
                case 5 -> json.replaceFirst("\"1s\"", "[".repeat(1100) + "]".repeat(1100));
                default -> json;
            };
        }
    }

    @Provide
    Arbitrary<TextEdit> textual() {
        return Combinators.combine(Arbitraries.frequencyOf(
                        net.jqwik.api.Tuple.of(8, Arbitraries.just(0)), net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(1, 5))),
                Arbitraries.integers().between(0, 100_000)).as(TextEdit::new);
    }

    @Property(tries = 200)
    void everyDurationParsesOrFailsNamingTheField(@ForAll("durations") String duration) {
        checkParsesOrFailsCleanly(BASE.replace("\"refillPeriod\": \"1s\"", "\"refillPeriod\": \"" + duration.replace("\\", "\\\\")
                .replace("\"", "\\\"") + "\"").replace("\"window\": \"1h\"", "\"window\": \"" + duration.replace("\\", "\\\\")
                .replace("\"", "\\\"") + "\""));
    }

    /** A file holds one JSON document: whatever follows the configuration object is an error, not ignored. */
    @Property(tries = 100)
    void contentAfterTheConfigurationIsAnError(@ForAll("trailing") String trailing) {
        InvalidConfigurationException e = parseFailure(BASE + trailing);
        assertThat(e).as("trailing %s", trailing).isNotNull();
        assertThat(e.path()).isEqualTo("t.json");
    }

    @Provide
    Arbitrary<String> trailing() {
        return Arbitraries.oneOf(Arbitraries.of("{}", "]", "}", "x", "null", "1", "\"tiers\"", BASE),
                Arbitraries.strings().withCharRange('!', '~').ofMinLength(1).ofMaxLength(20)).map(s -> "\n" + s);
    }

    private static InvalidConfigurationException parseFailure(String json) {
        try {
            RateLimitConfig.fromJson(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)), "t.json");
            return null;
        } catch (InvalidConfigurationException e) {
            return e;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void checkParsesOrFailsCleanly(String json) {
        RateLimitConfig config;
        try {
            config = RateLimitConfig.fromJson(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)), "t.json");
            Statistics.label("outcome").collect("parsed");
        } catch (InvalidConfigurationException e) {
            Statistics.label("outcome").collect("refused");
            assertThat(e.path()).isNotBlank();
            assertThat(e.getMessage()).startsWith(e.path() + ": ").doesNotContain("\tat ", "Exception", "java.", "com.fasterxml");
            return;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ManualClock clock = Fixtures.clock();
        MemoryStore store = MemoryStore.builder().clock(clock).build();
        List<Limit> limits = new ArrayList<>();
        config.tiers().values().forEach(byEndpoint -> limits.addAll(byEndpoint.values()));
        config.unmatched().ifPresent(limits::add);
        for (Limit limit : limits) {
            RateLimiter limiter = store.limiter(limit);
            limiter.tryAcquire("k");
            for (EndpointRule rule : config.endpoints()) {
                if (rule.name().equals(limit.name())) {
                    assertThat(limiter.tryAcquire("c" + rule.cost(), rule.cost()).verdict()).isNotEqualTo(dev.ratelimit.Verdict.COST_EXCEEDS_LIMIT);
                }
            }
        }
        clock.advanceMicros(1_000_000_000_000L);
        for (Limit limit : limits) {
            store.limiter(limit).tryAcquire("k");
        }
    }

    /** Applies {@code m} to the {@code m.target()}-th value under {@code root}. */
    private static void apply(ObjectNode root, Mutation m) {
        List<Object[]> slots = new ArrayList<>(); // {parent, key or index}
        collect(root, slots);
        if (slots.isEmpty()) {
            return;
        }
        Object[] slot = slots.get(m.target() % slots.size());
        JsonNode parent = (JsonNode) slot[0];
        JsonNode current = parent.isObject() ? parent.get((String) slot[1]) : parent.get((Integer) slot[1]);
        switch (m.op()) {
            case REPLACE -> set(parent, slot[1], m.value().deepCopy());
            case REMOVE -> {
                if (parent.isObject()) {
                    ((ObjectNode) parent).remove((String) slot[1]);
                } else {
                    ((ArrayNode) parent).remove((Integer) slot[1]);
                }
            }
            case ADD_FIELD -> {
                JsonNode target = current.isObject() ? current : parent;
                if (target.isObject()) {
                    ((ObjectNode) target).set(m.key(), m.value().deepCopy());
                } else {
                    ((ArrayNode) target).add(m.value().deepCopy());
                }
            }
            case WRAP_IN_ARRAY -> set(parent, slot[1], NODES.arrayNode().add(current.deepCopy()));
            case RENAME_KEY -> {
                if (parent.isObject()) {
                    ObjectNode object = (ObjectNode) parent;
                    JsonNode value = object.remove((String) slot[1]);
                    object.set(m.key(), value);
                }
            }
        }
    }

    private static void set(JsonNode parent, Object key, JsonNode value) {
        if (parent.isObject()) {
            ((ObjectNode) parent).set((String) key, value);
        } else {
            ((ArrayNode) parent).set((Integer) key, value);
        }
    }

    private static void collect(JsonNode node, List<Object[]> slots) {
        if (node.isObject()) {
            for (Map.Entry<String, JsonNode> e : node.properties()) {
                slots.add(new Object[] {node, e.getKey()});
                collect(e.getValue(), slots);
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                slots.add(new Object[] {node, i});
                collect(node.get(i), slots);
            }
        }
    }
}
