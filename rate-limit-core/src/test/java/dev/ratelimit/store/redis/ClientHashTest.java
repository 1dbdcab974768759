package dev.ratelimit.store.redis;

import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class ClientHashTest {

    @Test
    void withoutASecretItIsTheFirst128BitsOfSha256InBase64url() {
        // SHA-256("abc") = ba7816bf8f01cfea414140de5dae2223 b00361a3... (FIPS 180-2)
        assertThat(ClientHash.sha256().of("abc")).isEqualTo("ungWv48Bz-pBQUDeXa4iIw");
    }

    @Test
    void withASecretItIsTheFirst128BitsOfHmacSha256() {
        // RFC 4231 test case 2: HMAC-SHA-256("Jefe", "what do ya want for nothing?") = 5bdcc146bf60754e6a04242608957...
        ClientHash keyed = ClientHash.hmacSha256("Jefe".getBytes(StandardCharsets.UTF_8));
        assertThat(keyed.of("what do ya want for nothing?")).isEqualTo("W9zBRr9gdU5qBCQmCJV1xw");
    }

    @Test
    void instancesWithTheSameSecretAgreeAndOtherSecretsDoNot() {
        byte[] secret = "a shared secret of the fleet".getBytes(StandardCharsets.UTF_8);
        String ip = "ip:203.0.113.7";
        assertThat(ClientHash.hmacSha256(secret).of(ip)).isEqualTo(ClientHash.hmacSha256(secret.clone()).of(ip))
                .isNotEqualTo(ClientHash.hmacSha256("another secret of 16+ chars".getBytes(StandardCharsets.UTF_8)).of(ip))
                .isNotEqualTo(ClientHash.sha256().of(ip));
    }

    @Test
    void keysWithLoneSurrogatesAreOtherClientsThanTheKeysTheirUtf8WouldSpell() {
        // String.getBytes(UTF_8) writes '?' for an unpaired surrogate: "user-\uD800" would be "user-?",
        // and share that client's Redis keys (the in-memory store keeps them apart).
        for (ClientHash hash : new ClientHash[] {ClientHash.sha256(),
                ClientHash.hmacSha256("a secret of 16+ characters".getBytes(StandardCharsets.UTF_8))}) {
            assertThat(hash.of("user-\uD800")).isNotEqualTo(hash.of("user-?"))
                    .isNotEqualTo(hash.of("user-\uDC00")).isNotEqualTo(hash.of("user-\uDBFF"));
            assertThat(hash.of("\uDC00\uD800")).isNotEqualTo(hash.of("??"));
        }
        // Well-formed keys, a surrogate pair included, keep the hash they always had: no state is lost.
        assertThat(ClientHash.sha256().of("user-\uD83D\uDE00"))
                .isEqualTo(ClientHash.sha256().of(new String("user-\uD83D\uDE00".getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8)));
        assertThat(ClientHash.sha256().of("abc")).isEqualTo("ungWv48Bz-pBQUDeXa4iIw");
    }

    @Test
    void aThreadThatHashedKeepsNoClassOfTheLibraryAliveOnceTheStoreIsGone() throws Exception {
        // A container's threads outlive an undeployed web application: what they keep per thread must
        // not hold the application's class loader (the library's classes live in WEB-INF/lib).
        WeakReference<ClassLoader> loader = hashOnThisThreadFromAnIsolatedLoader();

        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100)).until(() -> {
            System.gc();
            return loader.get() == null;
        });
    }

    private static WeakReference<ClassLoader> hashOnThisThreadFromAnIsolatedLoader() throws Exception {
        URL classes = ClientHash.class.getProtectionDomain().getCodeSource().getLocation();
        URLClassLoader isolated = new URLClassLoader(new URL[] {classes}, ClassLoader.getPlatformClassLoader());
        Class<?> type = isolated.loadClass(ClientHash.class.getName());
        assertThat(type).isNotSameAs(ClientHash.class);
        Method of = type.getDeclaredMethod("of", String.class);
        of.setAccessible(true);
        Method sha256 = type.getDeclaredMethod("sha256");
        sha256.setAccessible(true);
        Method hmac = type.getDeclaredMethod("hmacSha256", byte[].class);
        hmac.setAccessible(true);
        assertThat(of.invoke(sha256.invoke(null), "abc")).isEqualTo("ungWv48Bz-pBQUDeXa4iIw");
        of.invoke(hmac.invoke(null, (Object) "a secret of 16+ characters".getBytes(StandardCharsets.UTF_8)), "abc");
        isolated.close();
        return new WeakReference<>(isolated);
    }

    @Test
    void aKeyWithASurrogatePairIsHashedAsItsUtf8() throws Exception {
        byte[] sha = java.security.MessageDigest.getInstance("SHA-256")
                .digest("user-\uD83D\uDE00".getBytes(StandardCharsets.UTF_8));
        String expected = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(java.util.Arrays.copyOf(sha, 16));
        assertThat(ClientHash.sha256().of("user-\uD83D\uDE00")).isEqualTo(expected);
    }

    @Test
    void aKeyEndingInALoneHighSurrogateHashesAsAnotherClientThanItsUtf8() {
        assertThat(ClientHash.sha256().of("user-\uD83D")).isNotEqualTo(ClientHash.sha256().of("user-?"));
    }
}
