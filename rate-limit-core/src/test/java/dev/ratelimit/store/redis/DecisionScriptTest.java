package dev.ratelimit.store.redis;

import dev.ratelimit.Limit;
import dev.ratelimit.Policy;
import dev.ratelimit.TokenBucket;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static dev.ratelimit.Fixtures.clock;
import static org.assertj.core.api.Assertions.assertThat;

/** The EVALSHA scripts: one per set of algorithms and store, holding only those algorithms. */
class DecisionScriptTest {
    private final FunctionLibrary library = new FunctionLibrary("test store", clock());

    @Test
    void limitsUsingTheSameAlgorithmsShareOneScriptWhateverTheirNumbersOrOrder() {
        DecisionScript a = DecisionScript.forLimit(Limit.of("partner",
                TokenBucket.perSecond(10, 1), Policy.fixedWindow(100, Duration.ofHours(1))), library);
        DecisionScript b = DecisionScript.forLimit(Limit.of("customer-42",
                Policy.fixedWindow(5, Duration.ofMinutes(1)), TokenBucket.perSecond(500, 100)), library);

        assertThat(b).as("about 10 KB of script text, held once").isSameAs(a);
        assertThat(library.scripts()).hasSize(1);
    }

    @Test
    void aScriptHoldsOnlyTheAlgorithmsOfItsLimitsInPolicyTypeOrder() {
        DecisionScript gcraAndBucket = DecisionScript.forLimit(Limit.of("l",
                Policy.gcra(3, Duration.ofSeconds(1), 6), TokenBucket.perSecond(10, 1)), library);
        DecisionScript log = DecisionScript.forLimit(Limit.of("l", Policy.slidingWindowLog(3, Duration.ofMinutes(1))), library);

        String source = gcraAndBucket.source();
        assertThat(source).contains("ALGORITHMS[1] =", "ALGORITHMS[5] =")
                .doesNotContain("ALGORITHMS[2] =", "ALGORITHMS[3] =",
                        "ALGORITHMS[4] =");
        assertThat(source.indexOf("ALGORITHMS[1] =")).isLessThan(source.indexOf("ALGORITHMS[5] ="));
        assertThat(log.source()).contains("ALGORITHMS[3] =").doesNotContain("ALGORITHMS[5] =");
        assertThat(library.scripts()).hasSize(2);
    }

    @Test
    void eachStoreHasScriptsOfItsOwn() {
        Limit limit = Limit.of("l", Policy.fixedWindow(5, Duration.ofMinutes(1)));
        FunctionLibrary other = new FunctionLibrary("other store", clock());

        assertThat(DecisionScript.forLimit(limit, other)).isNotSameAs(DecisionScript.forLimit(limit, library));
    }
}
