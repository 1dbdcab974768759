package dev.ratelimit.store.redis;

import dev.ratelimit.FailureMode;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.Source;
import dev.ratelimit.testing.RedisCluster;
import dev.ratelimit.testing.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.SslOptions;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A {@code rediss://} URL talks TLS, verifying the server against the trust store it is given (by
 * default the JVM's) and presenting a client certificate to a server that asks for one; a
 * {@code rediss-cluster://} URL discovers and uses the nodes' TLS ports.
 */
class RedisTlsTest {
    private static final char[] PASSWORD = "test-only".toCharArray();
    private static final Limit LIMIT = Limit.of("tls", Policy.fixedWindow(3, Duration.ofDays(400)));

    /** A self-signed certificate for 127.0.0.1 as PEM files for redis-server, and a trust store holding it. */
    private record Certs(Path certPem, Path keyPem, Path truststore) {
        SslOptions trusting() {
            return SslOptions.builder().truststore(truststore.toFile(), PASSWORD).trustStoreType("PKCS12").build();
        }

        List<String> serverArgs(int tlsPort) {
            return List.of("--tls-port", Integer.toString(tlsPort), "--tls-cert-file", certPem.toString(),
                    "--tls-key-file", keyPem.toString(), "--tls-ca-cert-file", certPem.toString(), "--tls-auth-clients", "no");
        }
    }

    /** A key store holding a new self-signed key pair for 127.0.0.1 under the alias "redis". */
    private static Path keyPair(Path dir, String name) throws Exception {
        Path keystore = dir.resolve(name + ".p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "redis", "-keyalg", "EC", "-dname", "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1",
                "-validity", "2", "-storetype", "PKCS12", "-keystore", keystore.toString(),
                "-storepass", new String(PASSWORD), "-keypass", new String(PASSWORD))
                .redirectErrorStream(true).redirectOutput(dir.resolve(name + "-keytool.log").toFile()).start();
        assertThat(keytool.waitFor()).as("keytool exit code").isZero();
        return keystore;
    }

    private static KeyStore load(Path keystore) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            store.load(in, PASSWORD);
        }
        return store;
    }

    private static Certs certs(Path dir) throws Exception {
        KeyStore server = load(keyPair(dir, "server"));
        Certificate cert = server.getCertificate("redis");
        Path certPem = pem(dir.resolve("cert.pem"), "CERTIFICATE", cert.getEncoded());
        Path keyPem = pem(dir.resolve("key.pem"), "PRIVATE KEY", server.getKey("redis", PASSWORD).getEncoded());
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("redis", cert);
        Path truststore = dir.resolve("trust.p12");
        try (OutputStream out = Files.newOutputStream(truststore)) {
            trust.store(out, PASSWORD);
        }
        return new Certs(certPem, keyPem, truststore);
    }

    @Test
    @SuppressWarnings("try") // the server is used through its URL
    void aRedissUrlDecidesOverTlsAndRefusesAnUntrustedServer(@TempDir Path dir) throws Exception {
        Certs certs = certs(dir);
        int tlsPort = RedisServer.freePort();
        try (RedisServer redis = RedisServer.start(certs.serverArgs(tlsPort))) {
            String url = "rediss://127.0.0.1:" + tlsPort;
            try (RedisStore trusting = RedisStore.builder().url(url).sslOptions(certs.trusting())
                    .connectTimeout(Duration.ofSeconds(2)).readTimeout(Duration.ofSeconds(2)).build()) {
                assertThat(trusting.limiter(LIMIT).tryAcquire("client").source()).isEqualTo(Source.STORE);
                assertThat(trusting.limiter(LIMIT).tryAcquire("client").remaining()).isEqualTo(1);
            }
            try (RedisStore untrusting = RedisStore.builder().url(url).failureMode(FailureMode.FAIL_CLOSED)
                    .connectTimeout(Duration.ofSeconds(2)).readTimeout(Duration.ofSeconds(2)).build()) {
                assertThat(untrusting.limiter(LIMIT).tryAcquire("client").source())
                        .as("the JVM's trust store does not know the self-signed certificate").isEqualTo(Source.FAIL_CLOSED);
            }
        }
    }

    @Test
    @SuppressWarnings("try") // the server is used through its URL
    void aServerAskingForAClientCertificateGetsTheOneInTheJvmsKeyStoreOrInTheSslOptions(@TempDir Path dir) throws Exception {
        Certs certs = certs(dir);
        Path clientKeys = keyPair(dir, "client");
        Path clientCert = pem(dir.resolve("client.pem"), "CERTIFICATE", load(clientKeys).getCertificate("redis").getEncoded());
        List<String> args = new ArrayList<>(certs.serverArgs(RedisServer.freePort()));
        // The server asks every client for a certificate signed by the client's own (self-signed) one.
        args.set(args.indexOf("--tls-ca-cert-file") + 1, clientCert.toString());
        args.set(args.indexOf("--tls-auth-clients") + 1, "yes");
        try (RedisServer redis = RedisServer.start(args)) {
            String url = "rediss://127.0.0.1:" + args.get(args.indexOf("--tls-port") + 1);
            SslOptions withKey = SslOptions.builder().truststore(certs.truststore().toFile(), PASSWORD)
                    .trustStoreType("PKCS12").keystore(clientKeys.toFile(), PASSWORD).keyStoreType("PKCS12").build();
            assertThat(decide(RedisStore.builder().url(url).sslOptions(withKey))).isEqualTo(Source.STORE);
            assertThat(decide(RedisStore.builder().url(url).sslOptions(certs.trusting())))
                    .as("no client certificate").isEqualTo(Source.FAIL_CLOSED);
            try (RedisStore noCertificate = RedisStore.builder().url(url).sslOptions(certs.trusting())
                    .connectTimeout(Duration.ofSeconds(2)).readTimeout(Duration.ofSeconds(2)).build()) {
                assertThatThrownBy(noCertificate::checkConnection).as("the server closes the connection; the check says why it may")
                        .hasMessageEndingWith("closes the connection on a missing or untrusted one: give one with"
                                + " -Djavax.net.ssl.keyStore or sslOptions)");
            }

            // A URL alone uses the JVM's default SSL context, which -Djavax.net.ssl.keyStore and
            // -Djavax.net.ssl.trustStore configure (the example app and the filter's init-params give only a URL).
            SSLContext jvmDefault = SSLContext.getDefault();
            try {
                SSLContext.setDefault(context(clientKeys, certs.truststore()));
                assertThat(decide(RedisStore.builder().url(url))).isEqualTo(Source.STORE);
                SSLContext.setDefault(context(null, certs.truststore()));
                assertThat(decide(RedisStore.builder().url(url))).as("no client certificate").isEqualTo(Source.FAIL_CLOSED);
            } finally {
                SSLContext.setDefault(jvmDefault);
            }
        }
    }

    /** The source of a first decision by the store {@code builder} builds, failing closed. */
    private static Source decide(RedisStore.Builder builder) {
        try (RedisStore store = builder.failureMode(FailureMode.FAIL_CLOSED)
                .connectTimeout(Duration.ofSeconds(2)).readTimeout(Duration.ofSeconds(2)).build()) {
            return store.limiter(LIMIT).tryAcquire("client").source();
        }
    }

    /** An SSL context presenting the key in {@code keys} (none when null) and trusting the certificates in {@code trust}. */
    private static SSLContext context(Path keys, Path trust) throws Exception {
        KeyManagerFactory km = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        km.init(keys == null ? null : load(keys), PASSWORD);
        TrustManagerFactory tm = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tm.init(load(trust));
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(km.getKeyManagers(), tm.getTrustManagers(), null);
        return context;
    }

    @Test
    void aRedissClusterUrlFindsAndUsesTheNodesTlsPorts(@TempDir Path dir) throws Exception {
        try (RedisServer probe = RedisServer.start()) {
            // --cluster-port (the bus on the plain port + 10000 while clients use TLS) came with Redis 7.
            assumeTrue(probe.hasFunctions(), "a TLS cluster here needs Redis 7's --cluster-port; this redis-server is "
                    + probe.version());
        }
        Certs certs = certs(dir);
        Map<Integer, Integer> tlsPorts = new ConcurrentHashMap<>();
        try (RedisCluster cluster = RedisCluster.start(2, 0, port -> {
            int tlsPort = RedisServer.freePort();
            tlsPorts.put(port, tlsPort);
            List<String> args = new ArrayList<>(certs.serverArgs(tlsPort));
            // The bus goes over TLS too, and stays on port + 10000 (else it would be the TLS port + 10000).
            args.addAll(List.of("--tls-cluster", "yes", "--cluster-port", Integer.toString(port + 10_000)));
            return args;
        })) {
            String url = "rediss-cluster://" + tlsPorts.values().stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
            try (RedisStore store = RedisStore.builder().url(url).sslOptions(certs.trusting()).failureMode(FailureMode.FAIL_CLOSED)
                    .connectTimeout(Duration.ofSeconds(2)).readTimeout(Duration.ofSeconds(2)).build()) {
                for (int i = 0; i < 20; i++) {
                    assertThat(store.limiter(LIMIT).tryAcquire("client-" + i).source()).isEqualTo(Source.STORE);
                }
            }
            for (RedisServer node : cluster.nodes()) {
                assertThat((Long) node.call("DBSIZE")).as("keys on the master at " + node.port()).isPositive();
                assertThat(node.calls("cmdstat_fcall") + node.calls("cmdstat_evalsha")).isPositive();
            }
        }
    }

    private static Path pem(Path file, String type, byte[] der) throws IOException {
        String body = Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der);
        return Files.writeString(file, "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n");
    }
}
