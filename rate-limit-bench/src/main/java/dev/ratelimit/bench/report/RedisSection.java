package dev.ratelimit.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ratelimit.bench.redis.RedisContenderKind;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/** The Redis tables: decisions per second against the ceilings, round trips and commands, memory, rejections. */
final class RedisSection {
    static final String BENCHMARK = "RedisBenchmark.decide";
    static final List<Integer> THREADS = List.of(1, 4, 16);
    /** A rejected share above this means some decisions were not made by Redis (the run's counter must stay at zero). */
    static final double REJECTED = 0.001;

    private final Results results;

    RedisSection(Results results) {
        this.results = results;
    }

    double score(RedisContenderKind kind, int threads) {
        return results.find(cell(kind, threads)).map(JmhResult::score).orElse(Double.NaN);
    }

    /** The largest share of rejected decisions of {@code kind} at {@code threads}, in the one pass or any round, or NaN. */
    double rejectedShare(RedisContenderKind kind, int threads) {
        double worst = Double.NaN;
        List<JmhResult> all = new ArrayList<>(results.jmh(cell(kind, threads)));
        results.rounds().values().forEach(round -> round.stream().filter(cell(kind, threads)).forEach(all::add));
        for (JmhResult r : all) {
            double share = r.rejectedShare();
            if (!Double.isNaN(share)) {
                worst = Double.isNaN(worst) ? share : Math.max(worst, share);
            }
        }
        return worst;
    }

    /** {@code ours} over {@code peer} at {@code threads} in each paired round, if rounds measured them. */
    Optional<RoundRatios> paired(RedisContenderKind ours, RedisContenderKind peer, int threads) {
        return RoundRatios.of(results.rounds(), cell(ours, threads), cell(peer, threads));
    }

    private static Predicate<JmhResult> cell(RedisContenderKind kind, int threads) {
        return r -> r.benchmark().equals(BENCHMARK) && r.threads() == threads && r.param("contender").equals(kind.name());
    }

    /** Requests per second of {@code redis-benchmark} at {@code clients} connections, or NaN. */
    double redisBenchmark(int clients) {
        return results.text("redis-benchmark-c" + clients + ".csv").map(RedisSection::csvRps).orElse(Double.NaN);
    }

    /** The {@code rps} column of {@code redis-benchmark --csv}'s one result line. */
    static double csvRps(String csv) {
        String[] lines = csv.strip().split("\r?\n");
        if (lines.length < 2) {
            return Double.NaN;
        }
        List<String> header = cells(lines[0]);
        List<String> values = cells(lines[lines.length - 1]);
        int i = header.indexOf("rps");
        return i < 0 || i >= values.size() ? Double.NaN : Double.parseDouble(values.get(i));
    }

    private static List<String> cells(String line) {
        List<String> out = new ArrayList<>();
        for (String cell : line.split(",(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)")) {
            out.add(cell.replace("\"", "").trim());
        }
        return out;
    }

    Optional<JsonNode> costs() {
        return results.json("redis-costs.json");
    }

    void write(Markdown md) {
        md.heading(2, "Redis");
        boolean anyJmh = !results.jmh(r -> r.benchmark().equals(BENCHMARK)).isEmpty();
        if (!anyJmh && costs().isEmpty()) {
            md.paragraph("Not run" + results.skipped("redis").map(s -> ": " + s).orElse("."));
            return;
        }
        md.paragraph("One local redis-server (persistence off) on the same machine as the clients, a fresh one per contender; "
                + "100,000 clients uniform, all tracked before the run, keys built per request. Every peer uses a pooled "
                + "Jedis client with the same pool size (16) and protocol (RESP2) as our store. Ours is the store as "
                + "a user builds it: Redis Functions (FCALL) on this Redis 7, concurrent calls sharing pipelined round "
                + "trips; the \"pipelining off\" row is the same token bucket with `pipelining(false)`. The ceilings: the same "
                + "pooled Jedis client running EVALSHA of `return 1`, and `redis-benchmark -P 1 EVALSHA <sha> 0` with as "
                + "many connections as client threads.");
        if (anyJmh) {
            md.heading(3, "Decisions per second by client threads");
            Markdown.Table table = new Markdown.Table(List.of("Contender", "1 thread", "4 threads", "16 threads"));
            for (RedisContenderKind kind : RedisContenderKind.values()) {
                List<String> row = new ArrayList<>(List.of(kind.label()));
                boolean any = false;
                for (int t : THREADS) {
                    double s = score(kind, t);
                    any |= !Double.isNaN(s);
                    row.add(Double.isNaN(s) ? "" : Markdown.rate(s));
                }
                if (any) {
                    table.row(row);
                }
            }
            List<String> ceiling = new ArrayList<>(List.of("ceiling: redis-benchmark EVALSHA return 1"));
            boolean anyCeiling = false;
            for (int t : THREADS) {
                double s = redisBenchmark(t);
                anyCeiling |= !Double.isNaN(s);
                ceiling.add(Double.isNaN(s) ? "" : Markdown.rate(s));
            }
            if (anyCeiling) {
                table.row(ceiling);
            }
            md.table(table);
            Markdown.Table ratios = new Markdown.Table(List.of("Ratio", "1 thread", "4 threads", "16 threads"));
            for (RedisContenderKind ours : RedisContenderKind.values()) {
                if (!ours.name().startsWith("OURS_") || THREADS.stream().allMatch(t -> Double.isNaN(score(ours, t)))) {
                    continue;
                }
                String name = ours.label().replace("ours: ", "");
                List<String> b4j = new ArrayList<>(List.of(name + " / Bucket4j"));
                List<String> jedis = new ArrayList<>(List.of(name + " / Jedis EVALSHA ceiling"));
                for (int t : THREADS) {
                    b4j.add(Markdown.ratio(score(ours, t) / score(RedisContenderKind.BUCKET4J, t)));
                    jedis.add(Markdown.percent(score(ours, t) / score(RedisContenderKind.JEDIS_EVALSHA_RETURN_1, t)));
                }
                ratios.row(b4j).row(jedis);
            }
            md.table(ratios);
            Markdown.Table rejected = new Markdown.Table(List.of("Contender", "Threads", "Rejected share"));
            for (RedisContenderKind kind : RedisContenderKind.values()) {
                for (int t : THREADS) {
                    double share = rejectedShare(kind, t);
                    if (share > REJECTED) {
                        rejected.row(List.of(kind.label(), Integer.toString(t), Markdown.percent(share)));
                    }
                }
            }
            if (!rejected.isEmpty()) {
                md.heading(3, "Rejected decisions");
                md.paragraph("Decisions not made by Redis (a timeout or an open circuit breaker under the store's failure mode) "
                        + "count as rejected and should not happen: the rows below measured something else than Redis "
                        + "decisions, and their ratios do not judge a target.");
                md.table(rejected);
            }
        }
        costs().ifPresent(c -> writeCosts(md, c));
    }

    private void writeCosts(Markdown md, JsonNode costs) {
        md.heading(3, "What a decision costs Redis");
        md.paragraph("Counted exactly on a fresh server over " + String.format("%,d", costs.path("clients").asInt())
                + " clients (Redis " + costs.path("redisVersion").asText() + "). Round trips: commands the client sent "
                + "(MONITOR); executed: every command Redis ran for it, inside scripts too (INFO commandstats). "
                + "First request: a client Redis has no state for; repeat: an allowed request of a tracked client. "
                + "Redis time: the server's own time per decision (INFO commandstats usec of the commands sent, a script's "
                + "including its inner commands; measured without MONITOR); an EVALSHA of `return 1` takes "
                + Markdown.number(costs.path("evalshaReturn1Micros").asDouble()) + " µs. "
                + "Bytes: the sum of MEMORY USAGE over the keys, and the growth of used_memory (which adds the keyspace's "
                + "own tables), per client.");
        Markdown.Table table = new Markdown.Table(List.of("Contender", "Round trips, first", "Round trips, repeat",
                "Sent (repeat)", "Executed, first", "Executed, repeat", "Redis µs, first", "Redis µs, repeat",
                "MEMORY USAGE B/client", "used_memory B/client"));
        for (JsonNode n : costs.path("contenders")) {
            table.row(List.of(n.path("label").asText(),
                    Markdown.number(n.path("first").path("roundTrips").asDouble()),
                    Markdown.number(n.path("repeat").path("roundTrips").asDouble()),
                    commands(n.path("repeat").path("sent")),
                    Markdown.number(n.path("first").path("commandsExecuted").asDouble()),
                    Markdown.number(n.path("repeat").path("commandsExecuted").asDouble()),
                    Markdown.number(n.path("first").path("serverMicros").asDouble()),
                    Markdown.number(n.path("repeat").path("serverMicros").asDouble()),
                    Markdown.number(n.path("memoryUsageBytesPerClient").asDouble()),
                    Markdown.number(n.path("usedMemoryBytesPerClient").asDouble())));
        }
        md.table(table);
        md.heading(3, "Redis calls per rejected request");
        md.paragraph("Clients over a limit of 10 per hour keep asking: each of 100 clients makes 10 allowed requests, then 20 "
                + "more that are all rejected. The first rejection needs Redis; our denial cache answers the repeats locally "
                + "until the earliest moment they could pass.");
        Markdown.Table rej = new Markdown.Table(List.of("Contender", "Denial cache", "Calls, first rejection",
                "Calls per repeated rejection", "Calls per rejected request", "Allowed over the limit"));
        for (JsonNode n : costs.path("rejections")) {
            boolean ours = n.path("contender").asText().startsWith("OURS_");
            rej.row(List.of(n.path("label").asText(), ours ? (n.path("denialCache").asBoolean() ? "on" : "off") : "n/a",
                    Markdown.number(n.path("firstRejection").path("roundTrips").asDouble()),
                    String.format(java.util.Locale.ROOT, "%.3f", n.path("repeatedRejection").path("roundTrips").asDouble()),
                    String.format(java.util.Locale.ROOT, "%.3f", n.path("callsPerRejected").asDouble()),
                    Integer.toString(n.path("allowedOverLimit").asInt())));
        }
        md.table(rej);
    }

    /** {@code evalsha 1} style summary of per-decision command counts. */
    private static String commands(JsonNode sent) {
        List<String> parts = new ArrayList<>();
        for (Map.Entry<String, JsonNode> e : sent.properties()) {
            parts.add(e.getKey().toUpperCase(java.util.Locale.ROOT) + " " + Markdown.number(e.getValue().asDouble()));
        }
        return String.join(", ", parts);
    }

    /** Round trips per repeat decision of {@code kind}, or NaN. */
    double roundTrips(RedisContenderKind kind, String phase) {
        return costs().map(c -> {
            for (JsonNode n : c.path("contenders")) {
                if (n.path("contender").asText().equals(kind.name())) {
                    return n.path(phase).path("roundTrips").asDouble();
                }
            }
            return Double.NaN;
        }).orElse(Double.NaN);
    }

    /** Redis server time per repeat decision of {@code kind}, or NaN. */
    double serverMicros(RedisContenderKind kind) {
        return costs().map(c -> {
            for (JsonNode n : c.path("contenders")) {
                if (n.path("contender").asText().equals(kind.name()) && n.path("repeat").has("serverMicros")) {
                    return n.path("repeat").path("serverMicros").asDouble();
                }
            }
            return Double.NaN;
        }).orElse(Double.NaN);
    }

    /** Redis server time of one EVALSHA of {@code return 1}, or NaN. */
    double evalshaMicros() {
        return costs().map(c -> c.path("evalshaReturn1Micros").asDouble(Double.NaN)).orElse(Double.NaN);
    }

    /** Calls per repeated rejection of {@code kind} with the denial cache as given, or NaN. */
    double repeatedRejectionCalls(RedisContenderKind kind, boolean denialCache) {
        return costs().map(c -> {
            for (JsonNode n : c.path("rejections")) {
                if (n.path("contender").asText().equals(kind.name()) && n.path("denialCache").asBoolean() == denialCache) {
                    return n.path("repeatedRejection").path("roundTrips").asDouble();
                }
            }
            return Double.NaN;
        }).orElse(Double.NaN);
    }
}
