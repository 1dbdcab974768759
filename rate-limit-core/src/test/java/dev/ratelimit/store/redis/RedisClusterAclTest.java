package dev.ratelimit.store.redis;

import dev.ratelimit.FailureMode;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Source;
import dev.ratelimit.testing.RedisCluster;
import dev.ratelimit.testing.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The README's least ACL user, set up by the README's own {@code ACL SETUSER} lines, on a Redis
 * Cluster: the store reads the slot map with it, decides on every master, and follows a
 * resharding's ASK redirections, all on Redis, with nothing refused but the optional CLIENT SETNAME;
 * the start-up check asks every master, so a user set up wrong on one fails it.
 */
class RedisClusterAclTest {
    private static final Limit LIMIT = Limit.of("cluster-acl", Policy.fixedWindow(10, Duration.ofDays(400)));
    private static RedisCluster cluster;

    @BeforeAll
    static void start() {
        cluster = RedisCluster.start(2, 0);
        assumeTrue(cluster.nodes().get(0).hasFunctions(), "Redis Functions need Redis 7");
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Test
    void theReadmesLeastAclUserDecidesOnEveryMasterAndThroughAResharding() throws IOException {
        List<List<String>> readmeAcl = readmeAclCommands();
        assertThat(readmeAcl).as("ACL SETUSER lines in the README").isNotEmpty();
        for (RedisServer node : cluster.nodes()) {
            for (List<String> command : readmeAcl) {
                node.call(command.toArray());
            }
            node.call("ACL", "LOG", "RESET");
        }
        List<String> errors = new CopyOnWriteArrayList<>();
        RateLimitListener listener = new RateLimitListener() {
            @Override
            public void onStoreError(Throwable error) {
                errors.add(String.valueOf(error));
            }
        };
        String url = cluster.url().replace("redis-cluster://", "redis-cluster://ratelimit:password@");
        try (RedisStore store = RedisStore.builder().url(url).failureMode(FailureMode.FAIL_CLOSED)
                .readTimeout(Duration.ofSeconds(1)).listener(listener).build()) {
            store.checkConnection(); // the start-up check needs no more than the decisions
            RateLimiter limiter = store.limiter(LIMIT);
            RedisServer first = cluster.currentMasters().get(0);
            RedisServer second = cluster.currentMasters().get(1);
            String onFirst = clientOn(first);
            String onSecond = clientOn(second);
            assertThat(limiter.tryAcquire(onFirst).source()).as("errors: %s", errors).isEqualTo(Source.STORE);
            assertThat(limiter.tryAcquire(onSecond).source()).as("errors: %s", errors).isEqualTo(Source.STORE);

            // A resharding moves the first client's slot: its keys are on the importing master, reached by ASK.
            RedisCluster.SlotMigration migration = cluster.startMigration(cluster.slot(keyOf(onFirst)), second);
            migration.moveKeys();
            assertThat(limiter.tryAcquire(onFirst).remaining()).as("errors: %s", errors).isEqualTo(8);
            migration.finish();
            assertThat(limiter.tryAcquire(onFirst).remaining()).as("errors: %s", errors).isEqualTo(7);
        }
        assertThat(errors).isEmpty();
        for (RedisServer node : cluster.currentMasters()) {
            assertThat(deniedByAcl(node)).as("ACL LOG of %s: only the optional CLIENT SETNAME and the check's INFO", node)
                    .allMatch(object -> object.equals("client|setname") || object.equals("info"));
        }
    }

    @Test
    void theStartUpCheckAsksEveryMasterSoAUserSetUpWrongOnOneFailsIt() throws IOException {
        for (RedisServer node : cluster.nodes()) {
            for (List<String> command : readmeAclCommands()) {
                node.call(command.toArray());
            }
        }
        String url = cluster.url().replace("redis-cluster://", "redis-cluster://ratelimit:password@");
        List<RedisServer> masters = cluster.currentMasters();
        for (RedisServer wrong : masters) {
            wrong.call("ACL", "SETUSER", "ratelimit", "resetkeys", "~other:*"); // an operator's slip on one node
            try (RedisStore store = RedisStore.builder().url(url).readTimeout(Duration.ofSeconds(1)).build()) {
                assertThatThrownBy(store::checkConnection).as("the user set up wrong on %s", wrong)
                        .hasMessageContaining("NOPERM").hasMessageEndingWith("(the user's key patterns must allow reading and writing ~rl:*)");
            } finally {
                wrong.call("ACL", "SETUSER", "ratelimit", "resetkeys", "~rl:*");
            }
        }
        try (RedisStore store = RedisStore.builder().url(url).readTimeout(Duration.ofSeconds(1)).build()) {
            store.checkConnection();
        }
    }

    @Test
    void aWrongPasswordIsNamedInTheOutageLineNotJustTheSlotMapThatCouldNotBeRead() {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream stderr = System.err;
        System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
        String url = cluster.url().replace("redis-cluster://", "redis-cluster://nobody:not-the-password@");
        try (RedisStore store = RedisStore.builder().url(url).failureMode(FailureMode.FAIL_OPEN).build()) {
            assertThat(store.limiter(LIMIT).tryAcquire("client").source()).isEqualTo(Source.FAIL_OPEN);
        } finally {
            System.setErr(stderr);
        }
        String failing = log.toString(StandardCharsets.UTF_8).lines().filter(l -> l.contains("is failing")).findFirst().orElseThrow();
        assertThat(failing).contains("Could not initialize cluster slots cache.").contains("WRONGPASS")
                .doesNotContain("not-the-password");
    }

    /** Every {@code ACL SETUSER ratelimit ...} line of the README, word for word, without a trailing comment. */
    private static List<List<String>> readmeAclCommands() throws IOException {
        List<List<String>> commands = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of("../README.md"))) {
            if (line.startsWith("ACL SETUSER ratelimit ")) {
                String command = line.contains("#") ? line.substring(0, line.indexOf('#')) : line;
                commands.add(List.of(command.trim().split("\\s+")));
            }
        }
        return commands;
    }

    private static List<String> deniedByAcl(RedisServer node) {
        List<String> objects = new ArrayList<>();
        for (Object entry : (List<?>) node.call("ACL", "LOG")) {
            List<?> fields = (List<?>) entry;
            for (int i = 0; i + 1 < fields.size(); i += 2) {
                if ("object".equals(fields.get(i))) {
                    objects.add(String.valueOf(fields.get(i + 1)));
                }
            }
        }
        return objects;
    }

    private static String keyOf(String client) {
        return ScriptLimit.key("rl:", LIMIT, ClientHash.sha256().of(client), 0);
    }

    private static String clientOn(RedisServer master) {
        for (int i = 0; ; i++) {
            String client = "client-" + i;
            if (cluster.masterOf(cluster.slot(keyOf(client))) == master) {
                return client;
            }
        }
    }
}
