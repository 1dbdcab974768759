package dev.ratelimit.store.redis;

import dev.ratelimit.InvalidConfigurationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RedisUrlTest {

    @Test
    void aSingleNodeUrlNamesHostPortCredentialsAndDatabase() {
        RedisUrl url = RedisUrl.parse("redis://app:s3cr%40t@redis.internal:6380/2");
        assertThat(url.kind()).isEqualTo(RedisUrl.Kind.STANDALONE);
        assertThat(url.tls()).isFalse();
        assertThat(url.user()).isEqualTo("app");
        assertThat(url.password()).isEqualTo("s3cr@t");
        assertThat(url.nodes()).containsExactly(new RedisUrl.Node("redis.internal", 6380));
        assertThat(url.database()).isEqualTo(2);
        assertThat(url.toString()).isEqualTo("redis://***@redis.internal:6380/2");
    }

    @Test
    void defaultsArePort6379DatabaseZeroAndNoCredentials() {
        RedisUrl url = RedisUrl.parse("rediss://cache");
        assertThat(url.tls()).isTrue();
        assertThat(url.nodes()).containsExactly(new RedisUrl.Node("cache", 6379));
        assertThat(url.database()).isZero();
        assertThat(url.user()).isNull();
        assertThat(url.password()).isNull();
    }

    @Test
    void aPasswordWithoutUserLogsInAsTheDefaultUser() {
        RedisUrl url = RedisUrl.parse("redis://:p4ss@[::1]:7000");
        assertThat(url.user()).isNull();
        assertThat(url.password()).isEqualTo("p4ss");
        assertThat(url.nodes()).containsExactly(new RedisUrl.Node("::1", 7000));
        assertThat(url.toString()).isEqualTo("redis://***@[::1]:7000");
    }

    @Test
    void aClusterUrlListsSeedNodes() {
        RedisUrl url = RedisUrl.parse("rediss-cluster://u:p@10.0.0.1:7000,10.0.0.2:7001,node3");
        assertThat(url.kind()).isEqualTo(RedisUrl.Kind.CLUSTER);
        assertThat(url.tls()).isTrue();
        assertThat(url.nodes()).containsExactly(new RedisUrl.Node("10.0.0.1", 7000),
                new RedisUrl.Node("10.0.0.2", 7001), new RedisUrl.Node("node3", 6379));
        assertThat(url.toString()).isEqualTo("rediss-cluster://***@10.0.0.1:7000,10.0.0.2:7001,node3:6379");
    }

    @Test
    void aSentinelUrlListsSentinelsThenTheMasterNameAndDatabase() {
        RedisUrl url = RedisUrl.parse("redis-sentinel://:pw@s1:26379,s2/mymaster/3");
        assertThat(url.kind()).isEqualTo(RedisUrl.Kind.SENTINEL);
        assertThat(url.nodes()).containsExactly(new RedisUrl.Node("s1", 26379), new RedisUrl.Node("s2", 26379));
        assertThat(url.master()).isEqualTo("mymaster");
        assertThat(url.database()).isEqualTo(3);
        assertThat(url.password()).isEqualTo("pw");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "redis://host/             | redis://host:6379",
            "redis://host/2/           | redis://host:6379/2",
            "redis-cluster://h1:1,h2/  | redis-cluster://h1:1,h2:6379",
            "redis-sentinel://s1/m/    | redis-sentinel://s1:26379/m",
            "redis-sentinel://s1/m/4/  | redis-sentinel://s1:26379/m/4"})
    void oneTrailingSlashIsIgnoredWhateverTheTopology(String url, String parsed) {
        assertThat(RedisUrl.parse(url).toString()).isEqualTo(parsed);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "http://host:6379           | has an unknown scheme \"http\"",
            "host:6379                  | must start with redis://",
            "redis://host:0             | has an invalid port \"0\"",
            "redis://host:99999         | has an invalid port \"99999\"",
            "redis://host:abc           | has a port that is not a number",
            "redis://host:+6379         | has a port that is not a number",
            "redis://host/+1            | has an invalid database \"+1\"",
            "redis://host/x             | has an invalid database \"x\"",
            "redis://h1:1,h2:2          | names 2 hosts",
            "redis-cluster://h1:1/0     | must not name a database",
            "redis-sentinel://s1:1      | must name the master",
            "redis-sentinel://s1:1/     | must name the master",
            "redis://host//             | must have at most one path segment",
            "redis://host/2//           | must have at most one path segment",
            "redis://host?timeout=5     | must not have a query",
            "redis://:6379              | has an invalid host"})
    void aBadUrlFailsNamingTheFieldAndTheValue(String url, String problem) {
        assertThatThrownBy(() -> RedisUrl.parse(url))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageStartingWith("url: ")
                .hasMessageContaining(problem);
    }

    @Test
    void aHostOutsideBracketsIsANameOrAnIpv4AddressNeverAnIpv6AddressOrPercentEncoded() {
        // "::1" unbracketed read as host ":" and port 1; "fe80::1:6379" as host "fe80::1", port 6379
        // (or host "fe80::1:6379"? nobody can tell); "h%41st" would be looked up as "h%41st", not "hAst".
        for (String url : List.of("redis://::1", "redis://:pw@fe80::1:6379/2", "redis-cluster://h1:7000,::1:7001",
                "redis-sentinel://2001:db8::7/mymaster", "redis://h%41st:6379")) {
            assertThatThrownBy(() -> RedisUrl.parse(url))
                    .isInstanceOf(InvalidConfigurationException.class)
                    .hasMessageStartingWith("url: has an invalid host")
                    .hasMessageContaining("IPv6 addresses go in brackets")
                    .hasMessageNotContaining(":pw@");
        }
        assertThat(RedisUrl.parse("redis://[fe80::1]:6379").nodes()).containsExactly(new RedisUrl.Node("fe80::1", 6379));
        assertThat(RedisUrl.parse("redis://10.0.0.1:6380").nodes()).containsExactly(new RedisUrl.Node("10.0.0.1", 6380));
    }

    @Test
    void anIpv6ZoneIdWrittenAsUrlsWriteItIsDecoded() {
        // RFC 6874: the '%' before a zone id is "%25" in a URL. Kept as "%25", the host was the zone
        // "25eth0", which no machine has: accepted at start-up, then never connected.
        assertThat(RedisUrl.parse("redis://[fe80::1%25eth0]:6379").nodes()).containsExactly(new RedisUrl.Node("fe80::1%eth0", 6379));
        assertThat(RedisUrl.parse("redis-cluster://[fe80::1%25eth0]:7000,[fe80::2%eth0]:7001").nodes())
                .containsExactly(new RedisUrl.Node("fe80::1%eth0", 7000), new RedisUrl.Node("fe80::2%eth0", 7001));
    }

    @Test
    void credentialsBeforeEachSeedNodeAreRefusedNotReadAsOnePasswordAndTheLastNode() {
        // Read up to the last '@', this was user "u", password "hunter2@h1:7000,u:hunter2" and one node, h2.
        for (String url : List.of("redis-cluster://u:hunter2@h1:7000,u:hunter2@h2:7001",
                "redis-sentinel://:hunter2@s1,:hunter2@s2/mymaster")) {
            assertThatThrownBy(() -> RedisUrl.parse(url))
                    .isInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining("must write credentials once, before the first host")
                    .hasMessageNotContaining("hunter2");
        }
        // A percent-encoded '@' or ',' in a password is no such list.
        assertThat(RedisUrl.parse("redis-cluster://u:p%40ss%2Cw@h1:7000,h2:7001").password()).isEqualTo("p@ss,w");
    }

    @Test
    void aBadUrlNeverEchoesItsPassword() {
        for (String url : List.of("redis://admin:hunter2@host:notaport", "redis-cluster://:hunter2@h:1/9",
                "ftp://user:hunter2@host",
                // no "://": a typo in the scheme, or none at all
                "redis:/:hunter2@host:6379", "redis:admin:hunter2@host", ":hunter2@host:6379", ":hunter2@redis://host",
                // no '@' at all: the host left out, the password sits where the port goes
                "redis://admin:hunter2", "redis://:hunter2", "redis-cluster://h:1,:hunter2", "redis://:hunter2/0",
                // ... and a password holding ':' puts part of itself in the host
                "redis://admin:hunter2:x", "redis://:hunter2:x", "redis-cluster://h:1,admin:hunter2:x",
                // a password in a query, as other clients write it
                "redis://cache?password=hunter2", "rediss://cache:6380/0?password=hunter2")) {
            assertThatThrownBy(() -> RedisUrl.parse(url))
                    .isInstanceOf(InvalidConfigurationException.class)
                    .hasMessageNotContaining("hunter2")
                    .hasMessageContaining("***");
        }
    }

    @Test
    void theDescriptionOfAUrlThatTheStoreLogsHoldsNoLineBreaks() {
        // The store's log lines (an outage, Functions unavailable) and its toString() name the URL by
        // toString(): a decoded user or master name must not break them into forged lines.
        RedisUrl url = RedisUrl.parse("redis-sentinel://ops%0D%0AWARN%20forged:pw@s1:26379/my%0D%0Amaster");
        assertThat(url.toString()).doesNotContain("\r").doesNotContain("\n")
                .isEqualTo("redis-sentinel://***@s1:26379/my??master");
        try (RedisStore store = RedisStore.builder().url("redis://us%0Aer:pw@127.0.0.1:1").build()) {
            assertThat(store.toString()).doesNotContain("\n").contains("redis://***@127.0.0.1:1");
        }
    }

    @Test
    void anUnexpandedPlaceholderFailsInsteadOfBecomingThePassword() {
        // "${REDIS_PASSWORD}" copied from a container config that does not expand it would otherwise
        // log in with the placeholder text and leave the store in its failure mode for good.
        for (String url : List.of("redis://:${REDIS_PASSWORD}@redis.internal:6379/0", "redis://${REDIS_HOST}:6379",
                "redis-sentinel://s1:26379/${MASTER}")) {
            assertThatThrownBy(() -> RedisUrl.parse(url))
                    .isInstanceOf(InvalidConfigurationException.class)
                    .hasMessageStartingWith("url: holds an unexpanded placeholder \"${...}\"")
                    .hasMessageContaining("%24%7B");
        }
        assertThat(RedisUrl.parse("redis://:a%24%7Bb@host").password()).isEqualTo("a${b");
    }

    @Test
    void aMissingUrlSaysSo() {
        assertThatThrownBy(() -> RedisUrl.parse(null)).hasMessage("url: must be set, was null");
        assertThatThrownBy(() -> RedisUrl.parse(" ")).hasMessage("url: must be set, was \"\"");
    }

    @Test
    void aUrlThatStartsWithItsSchemeSeparatorHasAnUnknownScheme() {
        assertThatThrownBy(() -> RedisUrl.parse("://cache"))
                .hasMessage("url: has an unknown scheme; use redis, rediss, redis-cluster, rediss-cluster or redis-sentinel, was \"://cache\"");
    }

    @Test
    void aQueryOrFragmentRightAfterTheSchemeIsRefusedAsSuchWithoutEchoingIt() {
        assertThatThrownBy(() -> RedisUrl.parse("redis://?password=hunter2"))
                .hasMessageStartingWith("url: must not have a query or fragment").hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> RedisUrl.parse("redis://#hunter2"))
                .hasMessageStartingWith("url: must not have a query or fragment").hasMessageNotContaining("hunter2");
    }

    @Test
    void aUserWithoutAPasswordIsAUserWhosePasswordComesFromAFile() {
        RedisUrl url = RedisUrl.parse("redis://rate%2Dlimit@cache:6380");
        assertThat(url.user()).isEqualTo("rate-limit");
        assertThat(url.password()).isNull();
        assertThat(url).hasToString("redis://***@cache:6380");
    }

    @Test
    void anAtSignRightAfterTheSchemeIsCredentialsWithoutAColon() {
        assertThatThrownBy(() -> RedisUrl.parse("redis://@cache"))
                .hasMessage("url: must write credentials as user:password@ or :password@, was \"redis://***@cache\"");
    }

    @Test
    void credentialsRepeatedBeforeEachClusterHostAreRefusedEvenWhenTheFirstAreEmpty() {
        assertThatThrownBy(() -> RedisUrl.parse("redis-cluster://@h0,u:p@h1"))
                .hasMessageStartingWith("url: must write credentials once, before the first host");
    }

    @Test
    void aUrlWithoutAHostNamesTheEmptyHost() {
        String hint = " (a name or an IPv4 address; IPv6 addresses go in brackets, [::1]:6379)";
        assertThatThrownBy(() -> RedisUrl.parse("redis:///0"))
                .hasMessage("url: has an invalid host \"\"" + hint + ", was \"redis:///0\"");
        assertThatThrownBy(() -> RedisUrl.parse("redis://:6379"))
                .hasMessage("url: has an invalid host \"\"" + hint + ", was \"redis://:***\"");
    }

    @Test
    void portsOneTo65535AndDatabaseZeroAreAccepted() {
        assertThat(RedisUrl.parse("redis://cache:1/0").nodes()).containsExactly(new RedisUrl.Node("cache", 1));
        assertThat(RedisUrl.parse("redis://cache:1/0").database()).isZero();
        assertThat(RedisUrl.parse("redis://cache:65535").nodes()).containsExactly(new RedisUrl.Node("cache", 65535));
    }
}
