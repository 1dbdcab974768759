package dev.ratelimit.store.redis;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JedisVersionTest {

    @Test
    void aJedisOlderThan8IsRefusedNamingItsVersionAndTheWayOut() {
        for (String old : new String[] {"6.0.0", "7.5.3", "5.2.0-beta1"}) {
            assertThatThrownBy(() -> JedisVersion.check(old)).isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("Jedis " + old + " is on the class path, but the Redis store needs Jedis 8.0.0 or later")
                    .hasMessageContaining("jedis.version");
        }
    }

    @Test
    void jedis8AndLaterPass() {
        for (String version : new String[] {"8.0.0", "8.0.2", "8.1.0-SNAPSHOT", "9.0.0", "10.2.1"}) {
            assertThatCode(() -> JedisVersion.check(version)).as(version).doesNotThrowAnyException();
        }
    }

    @Test
    void aVersionItCannotReadPassesForTheCallsToTell() {
        for (String unknown : new String[] {null, "", "x.y", ".1", "snapshot", "12345.0"}) {
            assertThatCode(() -> JedisVersion.check(unknown)).as(String.valueOf(unknown)).doesNotThrowAnyException();
        }
    }

    @Test
    void theJedisThisBuildUsesPasses() {
        assertThatCode(JedisVersion::check).doesNotThrowAnyException();
        assertThat(JedisVersion.majorOf("8.0.2")).isEqualTo(8);
    }
}
