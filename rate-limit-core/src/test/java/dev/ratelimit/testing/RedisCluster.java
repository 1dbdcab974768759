package dev.ratelimit.testing;

import org.awaitility.Awaitility;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A Redis Cluster of real processes, formed from Java the way {@code redis-cli --cluster create}
 * does it: each master takes an equal range of the 16384 slots ({@code CLUSTER ADDSLOTS}) and a
 * distinct config epoch, every node meets the first ({@code CLUSTER MEET}), replicas attach with
 * {@code CLUSTER REPLICATE}. The node timeout is short (1 s) so that failover tests are quick.
 *
 * <pre>{@code
 * try (RedisCluster cluster = RedisCluster.start(3, 1)) {     // 3 masters, 1 replica each
 *     RedisStore store = RedisStore.builder().url(cluster.url()).build();
 *     cluster.failover(0);                                      // replica of master 0 takes over
 *     cluster.killMasterAndAwaitPromotion(1);                   // master 1 dies, its replica is promoted
 *     RedisServer added = cluster.addMaster();                  // scale-out: a new, empty master
 *     cluster.migrateSlot(slot, added);                         // resharding: the slot and its keys move
 * }
 * }</pre>
 */
public final class RedisCluster implements AutoCloseable {
    /** Hash slots in a Redis Cluster. */
    public static final int SLOTS = 16_384;
    private static final Duration FORM_TIMEOUT = Duration.ofSeconds(30);
    private static final List<String> CLUSTER_ARGS = List.of(
            "--cluster-enabled", "yes",
            "--cluster-config-file", "nodes.conf",
            "--cluster-node-timeout", "1000",
            "--cluster-require-full-coverage", "no",
            "--cluster-replica-validity-factor", "0");

    private final Path binary;
    private final List<RedisServer> nodes;
    private final int masters;

    private RedisCluster(Path binary, List<RedisServer> nodes, int masters) {
        this.binary = binary;
        this.nodes = nodes;
        this.masters = masters;
    }

    /** A cluster of {@code masters} masters with {@code replicasPerMaster} replicas each. */
    public static RedisCluster start(int masters, int replicasPerMaster) {
        return start(RedisBinary.find(), masters, replicasPerMaster);
    }

    /** The same, run by {@code binary}. */
    public static RedisCluster start(Path binary, int masters, int replicasPerMaster) {
        return start(binary, masters, replicasPerMaster, port -> List.of());
    }

    /**
     * A cluster whose node on {@code port} also gets {@code extraArgs.apply(port)} (e.g. its own
     * {@code --tls-port} with {@code --tls-cluster yes}, and then {@code --cluster-port}
     * port + 10000, the bus port the harness checked was free; the harness talks to the plain port).
     */
    public static RedisCluster start(int masters, int replicasPerMaster, Function<Integer, List<String>> extraArgs) {
        return start(RedisBinary.find(), masters, replicasPerMaster, extraArgs);
    }

    private static RedisCluster start(Path binary, int masters, int replicasPerMaster,
                                      Function<Integer, List<String>> extraArgs) {
        List<RedisServer> nodes = new ArrayList<>();
        RedisCluster cluster = new RedisCluster(binary, nodes, masters);
        try {
            int total = masters * (1 + replicasPerMaster);
            for (int i = 0; i < total; i++) {
                int port = RedisServer.freePort(true);
                List<String> args = new ArrayList<>(CLUSTER_ARGS);
                args.addAll(extraArgs.apply(port));
                nodes.add(RedisServer.start(binary, port, args));
            }
            cluster.form(replicasPerMaster);
            return cluster;
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
    }

    private void form(int replicasPerMaster) {
        for (int m = 0; m < masters; m++) {
            RedisServer master = nodes.get(m);
            master.call("CLUSTER", "SET-CONFIG-EPOCH", m + 1);
            int from = m * SLOTS / masters;
            int to = (m + 1) * SLOTS / masters;
            for (int start = from; start < to; start += 1000) {
                List<Object> command = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
                for (int slot = start; slot < Math.min(to, start + 1000); slot++) {
                    command.add(slot);
                }
                master.call(command.toArray());
            }
        }
        RedisServer first = nodes.get(0);
        for (int i = 1; i < nodes.size(); i++) {
            nodes.get(i).call("CLUSTER", "MEET", "127.0.0.1", first.port());
        }
        awaitAllKnowEachOther();
        for (int r = 0; r < masters * replicasPerMaster; r++) {
            RedisServer replica = nodes.get(masters + r);
            String masterId = nodeId(nodes.get(r % masters));
            replica.call("CLUSTER", "REPLICATE", masterId);
        }
        awaitHealthy();
    }

    /** A URL listing every node as a seed: {@code redis-cluster://127.0.0.1:p1,127.0.0.1:p2,...}. */
    public String url() {
        return "redis-cluster://" + nodes.stream().filter(RedisServer::isRunning)
                .map(n -> "127.0.0.1:" + n.port()).collect(Collectors.joining(","));
    }

    /** Every node, masters first (in start order; roles change after a failover). */
    public List<RedisServer> nodes() {
        return List.copyOf(nodes);
    }

    /** The nodes that are masters now. */
    public List<RedisServer> currentMasters() {
        return nodes.stream().filter(RedisServer::answers)
                .filter(n -> "master".equals(Resp.info(n.port(), "replication", "role")))
                .collect(Collectors.toList());
    }

    /** The hash slot of {@code key}. */
    public int slot(String key) {
        return ((Long) anyRunning().call("CLUSTER", "KEYSLOT", key)).intValue();
    }

    /** The master serving {@code slot} now, as a running node sees it. */
    public RedisServer masterOf(int slot) {
        for (RedisServer node : currentMasters()) {
            for (Object range : (List<?>) node.call("CLUSTER", "SLOTS")) {
                List<?> r = (List<?>) range;
                long from = (Long) r.get(0);
                long to = (Long) r.get(1);
                int port = ((Long) ((List<?>) r.get(2)).get(1)).intValue();
                if (slot >= from && slot <= to) {
                    return byPort(port);
                }
            }
            break;
        }
        throw new IllegalStateException("no master serves slot " + slot);
    }

    /**
     * Moves {@code slot} and its keys from its master to {@code target} (a master), the way a
     * resharding does: IMPORTING / MIGRATING, MIGRATE of the keys, then SETSLOT NODE on every master.
     * Clients with a stale slot map get MOVED afterwards.
     */
    public void migrateSlot(int slot, RedisServer target) {
        RedisServer source = masterOf(slot);
        if (source == target) {
            return;
        }
        SlotMigration migration = startMigration(slot, target);
        migration.moveKeys();
        migration.finish();
    }

    /**
     * Starts moving {@code slot} from its master to {@code target}: {@code target} IMPORTING, the
     * owner MIGRATING. Until {@link SlotMigration#finish()}, the owner answers ASK for keys it no
     * longer has, so a test can decide in the middle of a resharding.
     */
    public SlotMigration startMigration(int slot, RedisServer target) {
        RedisServer source = masterOf(slot);
        if (source == target) {
            throw new IllegalArgumentException(target + " already serves slot " + slot);
        }
        target.call("CLUSTER", "SETSLOT", slot, "IMPORTING", nodeId(source));
        source.call("CLUSTER", "SETSLOT", slot, "MIGRATING", nodeId(target));
        return new SlotMigration(slot, source, target);
    }

    /** A slot being moved between two masters (see {@link #startMigration}). */
    public final class SlotMigration {
        private final int slot;
        private final RedisServer source;
        private final RedisServer target;

        private SlotMigration(int slot, RedisServer source, RedisServer target) {
            this.slot = slot;
            this.source = source;
            this.target = target;
        }

        /** MIGRATEs every key of the slot from the owner to the target, 100 keys per call. */
        public void moveKeys() {
            while (true) {
                List<?> keys = (List<?>) source.call("CLUSTER", "GETKEYSINSLOT", slot, 100);
                if (keys.isEmpty()) {
                    return;
                }
                List<Object> command = new ArrayList<>(List.of("MIGRATE", "127.0.0.1", target.port(), "", 0, 5000, "KEYS"));
                command.addAll(keys);
                source.call(command.toArray());
            }
        }

        /** Gives the slot to the target on every master (CLUSTER SETSLOT NODE) and waits until all agree. */
        public void finish() {
            String targetId = nodeId(target);
            target.call("CLUSTER", "SETSLOT", slot, "NODE", targetId);
            source.call("CLUSTER", "SETSLOT", slot, "NODE", targetId);
            for (RedisServer master : currentMasters()) {
                if (master != source && master != target) {
                    master.call("CLUSTER", "SETSLOT", slot, "NODE", targetId);
                }
            }
            awaitHealthy();
        }
    }

    /**
     * Scale-out: starts a new, empty master with no slots (the cluster arguments of {@link #start}),
     * has it meet the cluster, and waits until every node knows it. Give it slots with
     * {@link #migrateSlot} or {@link #startMigration}. Redis Functions libraries are not copied to it:
     * FUNCTION LOAD does not replicate between masters.
     */
    public RedisServer addMaster() {
        RedisServer node = RedisServer.start(binary, RedisServer.freePort(true), CLUSTER_ARGS);
        // Meeting every node, not just one, spares waiting for gossip to introduce it to the others.
        for (RedisServer other : nodes) {
            if (other.isRunning()) {
                node.call("CLUSTER", "MEET", "127.0.0.1", other.port());
            }
        }
        nodes.add(node);
        awaitAllKnowEachOther();
        awaitHealthy();
        return node;
    }

    /** A manual failover: a replica of the {@code masterIndex}-th current master takes over, with no data loss. */
    public RedisServer failover(int masterIndex) {
        RedisServer master = currentMasters().get(masterIndex);
        RedisServer replica = replicaOf(master);
        replica.call("CLUSTER", "FAILOVER");
        Awaitility.await("manual failover to " + replica).atMost(FORM_TIMEOUT).pollInterval(Duration.ofMillis(50))
                .until(() -> "master".equals(Resp.info(replica.port(), "replication", "role")));
        awaitHealthy();
        return replica;
    }

    /** Kills the {@code masterIndex}-th current master and waits until a replica is promoted; returns it. */
    public RedisServer killMasterAndAwaitPromotion(int masterIndex) {
        return awaitPromotionAfter(masterIndex, RedisServer::kill);
    }

    /**
     * Freezes the {@code masterIndex}-th current master (SIGSTOP, as a host that stops answering:
     * connections time out rather than being refused) and waits until its replica is promoted; returns it.
     */
    public RedisServer freezeMasterAndAwaitPromotion(int masterIndex) {
        return awaitPromotionAfter(masterIndex, RedisServer::pause);
    }

    private RedisServer awaitPromotionAfter(int masterIndex, Consumer<RedisServer> fault) {
        RedisServer master = currentMasters().get(masterIndex);
        RedisServer replica = replicaOf(master);
        fault.accept(master);
        Awaitility.await("promotion of " + replica).atMost(FORM_TIMEOUT).pollInterval(Duration.ofMillis(100))
                .until(() -> "master".equals(Resp.info(replica.port(), "replication", "role")));
        awaitHealthy();
        return replica;
    }

    @Override
    public void close() {
        for (RedisServer node : nodes) {
            node.close();
        }
    }

    private RedisServer replicaOf(RedisServer master) {
        String masterId = nodeId(master);
        for (RedisServer node : nodes) {
            if (node.isRunning() && node != master) {
                for (String line : ((String) node.call("CLUSTER", "NODES")).split("\n")) {
                    String[] f = line.split(" ");
                    if (f.length > 3 && f[2].contains("myself") && f[3].equals(masterId)) {
                        return node;
                    }
                }
            }
        }
        throw new IllegalStateException(master + " has no replica");
    }

    private static String nodeId(RedisServer node) {
        return (String) node.call("CLUSTER", "MYID");
    }

    private RedisServer byPort(int port) {
        return nodes.stream().filter(n -> n.port() == port).findFirst()
                .orElseThrow(() -> new IllegalStateException("no node on port " + port));
    }

    private RedisServer anyRunning() {
        return nodes.stream().filter(RedisServer::answers).findFirst()
                .orElseThrow(() -> new IllegalStateException("no node is running"));
    }

    private void awaitAllKnowEachOther() {
        Awaitility.await("every node to know every other").atMost(FORM_TIMEOUT).pollInterval(Duration.ofMillis(50))
                .until(() -> nodes.stream().allMatch(n -> {
                    String view = (String) n.call("CLUSTER", "NODES");
                    return view.split("\n").length == nodes.size() && !view.contains("handshake")
                            && !view.contains("noaddr");
                }));
    }

    /** Waits until every running node says {@code cluster_state:ok} and agrees on who serves every slot. */
    public void awaitHealthy() {
        Awaitility.await("cluster to be healthy").atMost(FORM_TIMEOUT).pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    String reference = null;
                    for (RedisServer n : nodes) {
                        if (!n.answers()) {
                            continue;
                        }
                        if (!"ok".equals(clusterState(n))) {
                            return false;
                        }
                        String slots = slotOwners(n);
                        if (reference == null) {
                            reference = slots;
                        } else if (!reference.equals(slots)) {
                            return false;
                        }
                    }
                    return true;
                });
    }

    private static String clusterState(RedisServer n) {
        for (String line : ((String) n.call("CLUSTER", "INFO")).split("\r\n")) {
            if (line.startsWith("cluster_state:")) {
                return line.substring("cluster_state:".length());
            }
        }
        return null;
    }

    private static String slotOwners(RedisServer n) {
        List<String> ranges = new ArrayList<>();
        for (Object range : (List<?>) n.call("CLUSTER", "SLOTS")) {
            List<?> r = (List<?>) range;
            ranges.add(r.get(0) + "-" + r.get(1) + "@" + ((List<?>) r.get(2)).get(1));
        }
        ranges.sort(null);
        return String.join(",", ranges);
    }
}
