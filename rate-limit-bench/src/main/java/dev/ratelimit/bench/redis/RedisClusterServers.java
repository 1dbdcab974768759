package dev.ratelimit.bench.redis;

import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

/**
 * A throw-away Redis Cluster of {@code masters} {@link RedisServer}s (no replicas) on free loopback
 * ports, formed as {@code redis-cli --cluster create} does: equal slot ranges, distinct config epochs,
 * every node meeting the first. Closing it stops every process.
 */
final class RedisClusterServers implements AutoCloseable {
    private final List<RedisServer> nodes;

    private RedisClusterServers(List<RedisServer> nodes) {
        this.nodes = nodes;
    }

    /** Starts and forms the cluster; returns once every node reports {@code cluster_state:ok}. */
    static RedisClusterServers start(int masters) throws IOException, InterruptedException {
        return start(RedisServer.binary(), masters);
    }

    /** The same, each node run by {@code binary}. */
    static RedisClusterServers start(String binary, int masters) throws IOException, InterruptedException {
        List<RedisServer> nodes = new ArrayList<>();
        RedisClusterServers cluster = new RedisClusterServers(nodes);
        try {
            for (int i = 0; i < masters; i++) {
                nodes.add(RedisServer.start(binary, busablePort(), List.of("--cluster-enabled", "yes",
                        "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "5000")));
            }
            for (int i = 0; i < masters; i++) {
                try (Jedis node = jedis(nodes.get(i))) {
                    int first = i * Protocol.CLUSTER_HASHSLOTS / masters;
                    int last = (i + 1) * Protocol.CLUSTER_HASHSLOTS / masters - 1;
                    int[] slots = new int[last - first + 1];
                    for (int s = first; s <= last; s++) {
                        slots[s - first] = s;
                    }
                    node.clusterAddSlots(slots);
                    node.clusterSetConfigEpoch(i + 1);
                    if (i > 0) {
                        node.clusterMeet("127.0.0.1", nodes.get(0).port());
                    }
                }
            }
            cluster.awaitFormed(masters);
            return cluster;
        } catch (IOException | InterruptedException | RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /** {@code redis-cluster://127.0.0.1:p1,127.0.0.1:p2,...}. */
    String url() {
        StringJoiner seeds = new StringJoiner(",", "redis-cluster://", "");
        nodes.forEach(n -> seeds.add("127.0.0.1:" + n.port()));
        return seeds.toString();
    }

    private void awaitFormed(int masters) throws IOException, InterruptedException {
        for (int attempt = 0; attempt < 300; attempt++) { // 300 x 100 ms, as RedisServer counts its PINGs
            boolean formed = true;
            for (RedisServer n : nodes) {
                try (Jedis node = jedis(n)) {
                    String info = node.clusterInfo();
                    formed &= info.contains("cluster_state:ok") && info.contains("cluster_known_nodes:" + masters + "\r");
                }
            }
            if (formed) {
                return;
            }
            Thread.sleep(100); // the nodes gossip on their own: nothing to wait on but time
        }
        throw new IOException("the cluster did not form within 300 checks, 100 ms apart");
    }

    /** A free port whose cluster bus port (port + 10000) is a valid port, and free too. */
    private static int busablePort() throws IOException {
        for (int attempt = 0; attempt < 100; attempt++) {
            int port = RedisServer.freePort();
            if (port + 10_000 <= 65_535 && free(port + 10_000)) {
                return port;
            }
        }
        throw new IOException("no free port with a free cluster bus port");
    }

    private static boolean free(int port) {
        try (java.net.ServerSocket s = new java.net.ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException taken) {
            return false;
        }
    }

    private static Jedis jedis(RedisServer server) {
        return new Jedis(new HostAndPort("127.0.0.1", server.port()), DefaultJedisClientConfig.builder().timeoutMillis(5_000).build());
    }

    @Override
    public void close() {
        nodes.forEach(RedisServer::close);
    }
}
