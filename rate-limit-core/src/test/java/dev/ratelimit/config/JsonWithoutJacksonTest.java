package dev.ratelimit.config;

import dev.ratelimit.Policy;
import dev.ratelimit.testing.ChildJvm;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A core-only user without Jackson (an optional dependency): reading JSON says what to add, instead of
 * a bare NoClassDefFoundError, and a configuration built in code still works.
 */
class JsonWithoutJacksonTest {

    @Test
    void readingJsonWithoutJacksonSaysWhatToAddAndTheBuilderStillWorks() throws Exception {
        String out = ChildJvm.without("jackson-.*", Child.class);

        String says = "reading a JSON configuration needs com.fasterxml.jackson.core:jackson-databind on the class path";
        assertThat(out).as(out).contains("defaults refused: " + says, "fromJson refused: " + says,
                "fromClasspath refused: " + says, "built in code: 1 tier");
    }

    /** Tries each way in, in a JVM without Jackson, and says what happened. */
    public static final class Child {
        public static void main(String[] args) {
            try {
                RateLimitConfig.defaults();
                System.out.println("defaults read");
            } catch (IllegalStateException e) {
                System.out.println("defaults refused: " + e.getMessage());
            }
            try {
                RateLimitConfig.fromJson(Path.of("rate-limits.json"));
                System.out.println("fromJson read");
            } catch (IllegalStateException e) {
                System.out.println("fromJson refused: " + e.getMessage());
            }
            try {
                RateLimitConfig.fromClasspath("rate-limits.json");
                System.out.println("fromClasspath read");
            } catch (IllegalStateException e) {
                System.out.println("fromClasspath refused: " + e.getMessage());
            }
            RateLimitConfig config = RateLimitConfig.builder().defaultTier("free")
                    .limit("free", "scan", Policy.fixedWindow(5, Duration.ofMinutes(1))).build();
            System.out.println("built in code: " + config.tiers().size() + " tier");
        }
    }
}
