package dev.ratelimit.bench.redis;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ratelimit.FixedWindow;
import dev.ratelimit.Gcra;
import dev.ratelimit.Policy;
import dev.ratelimit.SlidingWindowCounter;
import dev.ratelimit.SlidingWindowLog;
import dev.ratelimit.TokenBucket;
import dev.ratelimit.bench.KeyShape;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What each decision costs Redis, counted exactly on a fresh local server:
 * <ul>
 *   <li><b>round trips and commands per decision</b>, for a client's first request and for a repeat
 *       one: client commands from {@code MONITOR}; all commands executed (script-internal ones
 *       included) from {@code INFO commandstats} before and after;</li>
 *   <li><b>Redis bytes per tracked client</b>: the sum of {@code MEMORY USAGE} over the keys, and
 *       the growth of {@code used_memory} (which adds the keyspace's own tables), divided by the
 *       clients;</li>
 *   <li><b>Redis calls per rejected request</b>: clients over a limit of 10 per hour keep asking;
 *       the first rejection needs Redis, repeats are answered by our denial cache when it is on.</li>
 * </ul>
 *
 * <pre>
 * java -cp rate-limit-bench/target/benchmarks.jar dev.ratelimit.bench.redis.RedisCosts 10000 target/redis-costs.json
 * </pre>
 */
public final class RedisCosts {
    /** Our own measuring commands, and what Jedis sends when it opens a connection. */
    private static final Set<String> NOT_DECISIONS = Set.of("info", "config", "flushall", "echo", "monitor", "scan",
            "memory", "script", "ping", "client", "hello", "auth", "select", "dbsize");
    private static final int SMALL_LIMIT = 10;
    private static final int REJECTED_CLIENTS = 100;
    private static final int REPEATS = 20;
    private static final ObjectMapper JSON_MAPPER = new ObjectMapper();

    private RedisCosts() {
    }

    public static void main(String[] args) throws Exception {
        int clients = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        Path out = args.length > 1 ? Path.of(args[1]) : null;
        ObjectMapper json = new ObjectMapper();
        ObjectNode root = json.createObjectNode();
        root.put("clients", clients);
        ArrayNode perDecision = root.putArray("contenders");
        ArrayNode rejections = root.putArray("rejections");
        try (RedisServer server = RedisServer.start(); Jedis admin = new Jedis("127.0.0.1", server.port())) {
            root.put("redisVersion", infoField(admin.info("server"), "redis_version"));
            root.put("evalshaReturn1Micros", ceilingMicros(server, admin, clients));
            for (RedisContenderKind kind : RedisContenderKind.values()) {
                if (!kind.ownCosts()) {
                    continue;
                }
                ObjectNode node = perDecision.addObject();
                node.put("contender", kind.name());
                node.put("label", kind.label());
                decisionCosts(server, admin, kind, clients, node);
                System.out.println(node);
            }
            for (RedisContenderKind kind : RedisContenderKind.values()) {
                if (!kind.ownCosts()) {
                    continue;
                }
                for (boolean denialCache : kind == RedisContenderKind.OURS_TOKEN_BUCKET ? new boolean[] {true, false}
                        : new boolean[] {kind != RedisContenderKind.BUCKET4J}) {
                    ObjectNode node = rejections.addObject();
                    node.put("contender", kind.name());
                    node.put("label", kind.label());
                    node.put("denialCache", denialCache);
                    rejectionCosts(server, admin, kind, denialCache, node);
                    System.out.println(node);
                }
            }
        }
        if (out != null) {
            json.writerWithDefaultPrettyPrinter().writeValue(out.toFile(), root);
        }
    }

    /** Server time of one EVALSHA of {@code return 1}: what any one-script-call decision costs Redis at least. */
    private static double ceilingMicros(RedisServer server, Jedis admin, int calls) throws IOException {
        try (RedisContender ceiling = RedisContenderKind.JEDIS_EVALSHA_RETURN_1.create(server.port(), false)) {
            admin.configResetStat();
            for (int i = 0; i < calls; i++) {
                ceiling.decide("");
            }
            long[] stat = commandStats(admin.info("commandstats")).get("evalsha");
            return stat == null ? Double.NaN : stat[1] / (double) stat[0];
        }
    }

    private static void decisionCosts(RedisServer server, Jedis admin, RedisContenderKind kind, int clients, ObjectNode node)
            throws IOException, InterruptedException {
        try (RedisContender contender = kind.create(server.port(), true)) {
            // Opens the connection and loads the script, then starts from an empty keyspace.
            contender.decide("apikey:warm-up");
            admin.flushAll();
            long memoryBefore = Long.parseLong(infoField(admin.info("memory"), "used_memory"));
            count(server, admin, node.putObject("first"), clients, () -> {
                for (int i = 0; i < clients; i++) {
                    contender.prepare(KeyShape.PREFIX + KeyShape.rawKey(i));
                }
            });
            long memoryAfter = Long.parseLong(infoField(admin.info("memory"), "used_memory"));
            long keys = 0;
            long usage = 0;
            String cursor = ScanParams.SCAN_POINTER_START;
            do {
                ScanResult<String> page = admin.scan(cursor, new ScanParams().count(1000));
                for (String key : page.getResult()) {
                    keys++;
                    usage += admin.memoryUsage(key, 0);
                }
                cursor = page.getCursor();
            } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
            node.put("keysPerClient", keys / (double) clients);
            node.put("memoryUsageBytesPerClient", usage / (double) clients);
            node.put("usedMemoryBytesPerClient", (memoryAfter - memoryBefore) / (double) clients);
            int[] rejected = new int[1];
            count(server, admin, node.putObject("repeat"), clients, () -> {
                for (int i = 0; i < clients; i++) {
                    if (!contender.allowed(contender.decide(KeyShape.PREFIX + KeyShape.rawKey(i)))) {
                        rejected[0]++;
                    }
                }
            });
            node.put("repeatRejected", rejected[0]);
            // The same two phases on other clients, timed without MONITOR.
            time(admin, (ObjectNode) node.get("first"), clients, () -> {
                for (int i = clients; i < 2 * clients; i++) {
                    contender.prepare(KeyShape.PREFIX + KeyShape.rawKey(i));
                }
            });
            time(admin, (ObjectNode) node.get("repeat"), clients, () -> {
                for (int i = clients; i < 2 * clients; i++) {
                    contender.decide(KeyShape.PREFIX + KeyShape.rawKey(i));
                }
            });
        }
    }

    private static void rejectionCosts(RedisServer server, Jedis admin, RedisContenderKind kind, boolean denialCache,
                                       ObjectNode node) throws IOException, InterruptedException {
        admin.flushAll();
        try (RedisContender contender = small(kind, server.port(), denialCache)) {
            for (int c = 0; c < REJECTED_CLIENTS; c++) {
                for (int i = 0; i < SMALL_LIMIT; i++) {
                    contender.decide(KeyShape.PREFIX + KeyShape.rawKey(c));
                }
            }
            int[] allowed = new int[1];
            ObjectNode first = node.putObject("firstRejection");
            count(server, admin, first, REJECTED_CLIENTS, () -> {
                for (int c = 0; c < REJECTED_CLIENTS; c++) {
                    if (contender.allowed(contender.decide(KeyShape.PREFIX + KeyShape.rawKey(c)))) {
                        allowed[0]++;
                    }
                }
            });
            ObjectNode repeated = node.putObject("repeatedRejection");
            count(server, admin, repeated, REJECTED_CLIENTS * (REPEATS - 1), () -> {
                for (int r = 1; r < REPEATS; r++) {
                    for (int c = 0; c < REJECTED_CLIENTS; c++) {
                        if (contender.allowed(contender.decide(KeyShape.PREFIX + KeyShape.rawKey(c)))) {
                            allowed[0]++;
                        }
                    }
                }
            });
            first.remove("sentCounts");
            repeated.remove("sentCounts");
            node.put("limit", SMALL_LIMIT);
            node.put("rejectedRequests", REJECTED_CLIENTS * REPEATS);
            node.put("allowedOverLimit", allowed[0]);
            node.put("callsPerRejected", (first.get("roundTrips").asDouble() * REJECTED_CLIENTS
                    + repeated.get("roundTrips").asDouble() * REJECTED_CLIENTS * (REPEATS - 1)) / (REJECTED_CLIENTS * REPEATS));
        }
    }

    /** The same contender with a limit of {@value #SMALL_LIMIT} per hour. */
    private static RedisContender small(RedisContenderKind kind, int port, boolean denialCache) {
        Duration hour = Duration.ofHours(1);
        Policy policy = switch (kind) {
            case OURS_TOKEN_BUCKET -> new TokenBucket(SMALL_LIMIT, SMALL_LIMIT, hour);
            case OURS_FIXED_WINDOW -> new FixedWindow(SMALL_LIMIT, hour);
            case OURS_SLIDING_WINDOW_LOG -> new SlidingWindowLog(SMALL_LIMIT, hour);
            case OURS_SLIDING_WINDOW_COUNTER -> new SlidingWindowCounter(SMALL_LIMIT, hour);
            case OURS_GCRA -> new Gcra(SMALL_LIMIT, hour, SMALL_LIMIT);
            case BUCKET4J -> null;
            case JEDIS_EVALSHA_RETURN_1, OURS_TOKEN_BUCKET_UNPIPELINED -> throw new IllegalArgumentException(kind + " has no costs of its own");
        };
        return policy == null
                ? new Bucket4jRedisContender(port, SMALL_LIMIT, hour.dividedBy(SMALL_LIMIT), 0)
                : new OursRedisContender(port, policy, 1, denialCache, true);
    }

    /** Runs {@code work} ({@code decisions} decisions) and records what Redis did for it, per decision. */
    private static void count(RedisServer server, Jedis admin, ObjectNode into, int decisions, Work work)
            throws IOException, InterruptedException {
        admin.configResetStat();
        Map<String, Long> sentCounts;
        try (Monitor monitor = new Monitor(server.port())) {
            work.run();
            admin.echo(Monitor.MARKER);
            monitor.awaitMarker();
            sentCounts = new TreeMap<>(monitor.clientCommands());
            long roundTrips = sum(monitor.clientCommands());
            into.put("roundTrips", roundTrips / (double) decisions);
            ObjectNode sent = into.putObject("sent");
            monitor.clientCommands().forEach((name, n) -> {
                if (!NOT_DECISIONS.contains(name)) {
                    sent.put(name, n / (double) decisions);
                }
            });
            ObjectNode fromLua = into.putObject("inScripts");
            monitor.luaCommands().forEach((name, n) -> fromLua.put(name, n / (double) decisions));
        }
        Map<String, long[]> stats = commandStats(admin.info("commandstats"));
        long executed = 0;
        for (Map.Entry<String, long[]> e : stats.entrySet()) {
            if (!NOT_DECISIONS.contains(e.getKey())) {
                executed += e.getValue()[0];
            }
        }
        into.put("commandsExecuted", executed / (double) decisions);
        into.set("sentCounts", JSON_MAPPER.valueToTree(sentCounts));
    }

    /**
     * Runs {@code work} again without MONITOR (which slows every command it reports) and records the
     * server's time per decision: each command the client sent, at its mean {@code usec} from
     * {@code INFO commandstats} (a script's includes its inner commands).
     */
    private static void time(Jedis admin, ObjectNode into, int decisions, Work work) throws IOException {
        admin.configResetStat();
        work.run();
        Map<String, long[]> stats = commandStats(admin.info("commandstats"));
        double micros = 0;
        for (var command : into.path("sentCounts").properties()) {
            long[] stat = stats.get(command.getKey());
            if (stat != null && stat[0] > 0 && !NOT_DECISIONS.contains(command.getKey())) {
                micros += command.getValue().asDouble() / decisions * (stat[1] / (double) stat[0]);
            }
        }
        into.put("serverMicros", micros);
        into.remove("sentCounts");
    }

    private static long sum(Map<String, Long> counts) {
        long total = 0;
        for (Map.Entry<String, Long> e : counts.entrySet()) {
            if (!NOT_DECISIONS.contains(e.getKey())) {
                total += e.getValue();
            }
        }
        return total;
    }

    /**
     * {@code cmdstat_<name>:calls=N,usec=U,...} lines as name to {calls, usec} (subcommands such as
     * {@code config|resetstat} under their parent).
     */
    static Map<String, long[]> commandStats(String info) {
        Map<String, long[]> stats = new TreeMap<>();
        for (String line : info.split("\r?\n")) {
            if (!line.startsWith("cmdstat_")) {
                continue;
            }
            String name = line.substring("cmdstat_".length(), line.indexOf(':'));
            int bar = name.indexOf('|');
            if (bar >= 0) {
                name = name.substring(0, bar);
            }
            long[] s = stats.computeIfAbsent(name, n -> new long[2]);
            s[0] += field(line, "calls=");
            s[1] += field(line, "usec=");
        }
        return stats;
    }

    private static long field(String line, String name) {
        int from = line.indexOf(name) + name.length();
        int to = line.indexOf(',', from);
        return Long.parseLong(line.substring(from, to < 0 ? line.length() : to));
    }

    static String infoField(String info, String field) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1).trim();
            }
        }
        throw new IllegalStateException("INFO has no " + field);
    }

    @FunctionalInterface
    private interface Work {
        void run() throws IOException;
    }
}
