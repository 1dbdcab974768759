package dev.ratelimit.bench.memory;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ratelimit.bench.KeyShape;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.ref.Reference;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Bytes per tracked client: for each contender, the heap in use after a full GC before and after
 * one request from each of {@code clients} distinct clients, divided by the clients tracked. Key
 * strings are built per request and dropped, as in a servlet, so a container that keeps its keys
 * (every Caffeine- or map-based one) is charged for them and ours (which keeps a 56-bit hash) is not.
 * The sliding window log is measured after one request per client; each further request in its
 * window adds 8 bytes, up to its limit.
 *
 * <pre>
 * java -Xms6g -Xmx6g -cp rate-limit-bench/target/benchmarks.jar dev.ratelimit.bench.memory.MemoryFootprint \
 *     1000000 target/memory.json [CONTENDER...]
 * </pre>
 */
public final class MemoryFootprint {
    private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

    private MemoryFootprint() {
    }

    /** One contender's figure. */
    record Result(ContenderKind contender, int clients, long tracked, long heapBefore, long heapAfter) {
        double bytesPerClient() {
            return (heapAfter - heapBefore) / (double) tracked;
        }
    }

    public static void main(String[] args) throws IOException {
        int clients = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        Path out = args.length > 1 ? Path.of(args[1]) : null;
        List<ContenderKind> kinds = new ArrayList<>();
        for (int i = 2; i < args.length; i++) {
            kinds.add(ContenderKind.valueOf(args[i]));
        }
        if (kinds.isEmpty()) {
            kinds.addAll(List.of(ContenderKind.values()));
            kinds.remove(ContenderKind.BUCKET4J_BOOLEAN); // the same buckets as BUCKET4J
        }
        ObjectMapper json = new ObjectMapper();
        ArrayNode results = json.createArrayNode();
        for (ContenderKind kind : kinds) {
            Result r = measure(kind, clients);
            System.out.printf("%-45s %,10d clients tracked  %8.1f bytes/client%n", kind.label(), r.tracked(), r.bytesPerClient());
            ObjectNode node = results.addObject();
            node.put("contender", kind.name());
            node.put("label", kind.label());
            node.put("clients", r.clients());
            node.put("tracked", r.tracked());
            node.put("heapBefore", r.heapBefore());
            node.put("heapAfter", r.heapAfter());
            node.put("bytesPerClient", r.bytesPerClient());
        }
        if (out != null) {
            json.writerWithDefaultPrettyPrinter().writeValue(out.toFile(), results);
        }
    }

    static Result measure(ContenderKind kind, int clients) {
        long before = heapAfterGc();
        Contender contender = kind.create(clients);
        for (int i = 0; i < clients; i++) {
            contender.prepare(KeyShape.PREFIX + KeyShape.rawKey(i));
        }
        long after = heapAfterGc();
        long tracked = contender instanceof OursContender ours ? ours.trackedKeys() : clients;
        Reference.reachabilityFence(contender);
        return new Result(kind, clients, tracked, before, after);
    }

    /** Heap in use after full collections, once it stops shrinking. */
    static long heapAfterGc() {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 10; i++) {
            System.gc();
            long now = MEMORY.getHeapMemoryUsage().getUsed();
            if (now >= used) {
                return used;
            }
            used = now;
        }
        return used;
    }
}
