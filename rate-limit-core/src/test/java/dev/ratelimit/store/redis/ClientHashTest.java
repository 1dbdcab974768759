package dev.ratelimit.store.redis;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

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
}
