package dev.ratelimit.example.client;

import org.junit.jupiter.api.Test;

import java.net.http.HttpHeaders;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Reading the rate-limit headers defensively: what they say, and nothing when they say nothing sensible. */
class RateLimitHintsTest {
    /** 2026-01-01T00:00:00Z in microseconds. */
    private static final long NOW = 1_767_225_600_000_000L;

    @Test
    void readsTheIetfFieldsOfTheItemTheRateLimitFieldNames() {
        RateLimitHints h = hints("RateLimit", "\"scan-1\";r=3;t=7",
                "RateLimit-Policy", "\"scan\";q=10;w=1, \"scan-1\";q=1000;w=3600",
                "X-RateLimit-Remaining", "99", "X-RateLimit-Limit", "99");

        assertThat(h).isEqualTo(new RateLimitHints(-1, 3, 1000, 7_000_000, 3_600_000_000L));
    }

    @Test
    void fallsBackToTheXFieldsWithTheResetAsEpochSeconds() {
        RateLimitHints h = hints("X-RateLimit-Remaining", "2", "X-RateLimit-Limit", "10",
                "X-RateLimit-Reset", String.valueOf(NOW / 1_000_000 + 8));

        assertThat(h).isEqualTo(new RateLimitHints(-1, 2, 10, 8_000_000, -1));
    }

    @Test
    void readsRetryAfterAsSecondsOrAsAnHttpDate() {
        assertThat(hints("Retry-After", "30").serverWaitMicros()).isEqualTo(30_000_000);
        assertThat(hints("Retry-After", "Thu, 01 Jan 2026 00:00:45 GMT").serverWaitMicros()).isEqualTo(45_000_000);
        assertThat(hints("Retry-After", "Wed, 31 Dec 2025 23:59:00 GMT").serverWaitMicros()).isZero();
    }

    @Test
    void readsRetryAfterInTheObsoleteHttpDateFormsThatRfc9110RequiresARecipientToAccept() {
        assertThat(hints("Retry-After", "Thursday, 01-Jan-26 00:00:45 GMT").serverWaitMicros()).isEqualTo(45_000_000);
        assertThat(hints("Retry-After", "Thu Jan  1 00:00:45 2026").serverWaitMicros()).isEqualTo(45_000_000);
        assertThat(hints("Retry-After", "Friday, 01-Jan-99 00:00:00 GMT").serverWaitMicros())
                .as("a two-digit year more than 50 years ahead is the past century's: 1999, not 2099").isZero();
    }

    @Test
    void readsARetryAfterOfMoreThanTwelveDigitsAsAVeryLongWaitNotAsNone() {
        assertThat(hints("Retry-After", "99999999999999").serverWaitMicros()).isGreaterThanOrEqualTo(999_999_999_999_000_000L);
        assertThat(hints("Retry-After", "00000000000000030").serverWaitMicros()).isEqualTo(30_000_000);
    }

    @Test
    void readsAnHttpDateCenturiesAwayAsAVeryLongWaitNotAsAnOverflow() {
        // The parser takes years of up to nine digits; epoch seconds x 10^6 would overflow a long.
        assertThat(hints("Retry-After", "01 Jan 300000 00:00:00 GMT").serverWaitMicros()).isEqualTo(999_999_999_999_000_000L);
        assertThat(hints("Retry-After", "21 Nov 461507447 04:01:52 GMT").serverWaitMicros()).isEqualTo(999_999_999_999_000_000L);
    }

    @Test
    void withoutRetryAfterARefusalWaitsUntilTheQuotaIsBackWhenNothingIsLeft() {
        assertThat(hints("RateLimit", "\"login\";r=0;t=40").serverWaitMicros()).isEqualTo(40_000_000);
        assertThat(hints("RateLimit", "\"login\";r=2;t=40").serverWaitMicros()).isEqualTo(-1);
        assertThat(hints().serverWaitMicros()).isEqualTo(-1);
    }

    @Test
    void ignoresValuesThatDoNotParseInsteadOfTrustingThem() {
        assertThat(hints("Retry-After", "soon", "X-RateLimit-Remaining", "-5", "X-RateLimit-Limit", "1e9",
                "X-RateLimit-Reset", "yesterday", "RateLimit", "scan;r=abc;t=-1", "RateLimit-Policy", "\"unterminated;q=1"))
                .isEqualTo(new RateLimitHints(-1, -1, -1, -1, -1));
        assertThat(hints("RateLimit", "\"x\";r=1;t=1".repeat(500))).isEqualTo(RateLimitHints.NONE);
        assertThat(RateLimitHints.items("\"a,b\";q=1, token;q=2, \"esc\\\"aped\";q=3"))
                .extracting(RateLimitHints.Item::name).containsExactly("a,b", "token", "esc\"aped");
    }

    @Test
    void pacesOnlyWhenTheHeadersSayLittleIsLeft() {
        RateLimitHints plenty = hints("RateLimit", "\"scan\";r=5;t=5", "RateLimit-Policy", "\"scan\";q=10;w=10");
        RateLimitHints bucketLow = hints("RateLimit", "\"scan\";r=1;t=9", "RateLimit-Policy", "\"scan\";q=10;w=10");
        RateLimitHints windowEmpty = hints("RateLimit", "\"login\";r=0;t=3", "RateLimit-Policy", "\"login\";q=5;w=60");
        RateLimitHints xOnly = hints("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", String.valueOf(NOW / 1_000_000 + 6));

        assertThat(hints().paceMicros(0.1)).as("no headers, no pacing").isZero();
        assertThat(plenty.paceMicros(0.1)).isZero();
        assertThat(bucketLow.paceMicros(0.1)).as("the refill rate, w/q").isEqualTo(1_000_000);
        assertThat(windowEmpty.paceMicros(0.1)).as("the window ends first, t/(r+1)").isEqualTo(3_000_000);
        assertThat(xOnly.paceMicros(0.1)).isEqualTo(6_000_000);
        assertThat(bucketLow.paceMicros(0)).as("only at none left").isZero();
    }

    @Test
    void pacesAtExactlyTheShareOfTheLimitItIsToldToPaceBelow() {
        // "Pace when at most this share of the limit is left": 29 of 100 is 29%. In doubles,
        // 0.29 * 100 is 28.999999999999996, so 29 left was "not low" and did not pace.
        RateLimitHints twentyNineOfHundred = hints("RateLimit", "\"scan\";r=29;t=60", "RateLimit-Policy", "\"scan\";q=100;w=60");
        RateLimitHints twentyNineOfFifty = hints("RateLimit", "\"scan\";r=29;t=60", "RateLimit-Policy", "\"scan\";q=50;w=60");

        assertThat(twentyNineOfHundred.paceMicros(0.29)).as("29 of 100 left, pace below 29%").isEqualTo(600_000);
        assertThat(twentyNineOfFifty.paceMicros(0.58)).as("29 of 50 left, pace below 58%").isEqualTo(1_200_000);
        assertThat(twentyNineOfHundred.paceMicros(0.28)).isZero();
    }

    @Test
    void aFieldSplitOverSeveralLinesReadsLikeTheSameListOnOneLine() {
        // RFC 9110 5.3 and RFC 8941 4.2: a list field's lines are one list, joined with commas.
        RateLimitHints oneLine = fields(Map.of(
                "RateLimit", List.of("\"scan-1\";r=1;t=9"),
                "RateLimit-Policy", List.of("\"scan\";q=100;w=1, \"scan-1\";q=10;w=10")));
        RateLimitHints twoLines = fields(Map.of(
                "RateLimit", List.of("\"scan-1\";r=1;t=9"),
                "RateLimit-Policy", List.of("\"scan\";q=100;w=1", "\"scan-1\";q=10;w=10")));

        assertThat(oneLine).isEqualTo(new RateLimitHints(-1, 1, 10, 9_000_000, 10_000_000));
        assertThat(twoLines).isEqualTo(oneLine);
    }

    @Test
    void ofSeveralItemsTheOneThatBindsIsRead() {
        // A server may send one item per policy: the one with nothing left (back last), else the least left.
        assertThat(hints("RateLimit", "\"minute\";r=8;t=10, \"day\";r=0;t=3600").serverWaitMicros())
                .as("the day's quota is back in an hour").isEqualTo(3_600_000_000L);
        RateLimitHints leastLeft = hints("RateLimit", "\"minute\";r=8;t=10, \"day\";r=50;t=3600",
                "RateLimit-Policy", "\"minute\";q=10;w=60, \"day\";q=1000;w=86400");
        assertThat(leastLeft).as("8 of 10 is more of its quota than 50 of 1000")
                .isEqualTo(new RateLimitHints(-1, 50, 1000, 3_600_000_000L, 86_400_000_000L));
    }

    @Test
    void readsAnHttpDateAtALeapSecond() {
        long oneMinuteBefore = NOW - 60_000_000L; // 2025-12-31T23:59:00Z
        // RFC 9110 5.6.7: a time of day runs to 23:59:60; read as the second after 23:59:59.
        assertThat(RateLimitHints.retryAfterMicros("Wed, 31 Dec 2025 23:59:60 GMT", oneMinuteBefore)).isEqualTo(60_000_000L);
    }

    @Test
    void ofSeveralItemsWithNothingLeftTheOneBackLastBinds() {
        assertThat(hints("RateLimit", "\"a\";r=0;t=5, \"b\";r=0;t=60").serverWaitMicros()).isEqualTo(60_000_000L);
    }

    @Test
    void ofSeveralItemsWithQuotaLeftTheSmallestShareBindsNotTheSoonestBack() {
        RateLimitHints h = hints("RateLimit", "\"a\";r=1;t=100, \"b\";r=50;t=10",
                "RateLimit-Policy", "\"a\";q=10;w=100, \"b\";q=1000;w=100");

        assertThat(h.remaining()).as("50 of 1000 is less of its quota than 1 of 10").isEqualTo(50);
    }

    @Test
    void anItemWithNothingLeftBindsEvenWithoutAResetTime() {
        RateLimitHints h = hints("RateLimit", "\"a\";r=0, \"b\";r=5", "RateLimit-Policy", "\"b\";q=100;w=100");

        assertThat(h.remaining()).isZero();
    }

    @Test
    void anItemWithoutRIsNotTheBindingOneWhenAnotherSaysWhatIsLeft() {
        assertThat(hints("RateLimit", "\"a\";t=5, \"b\";r=3;t=7").remaining()).isEqualTo(3);
    }

    @Test
    void anItemWithoutRStillGivesItsResetTime() {
        RateLimitHints h = hints("RateLimit", "\"a\";t=5", "X-RateLimit-Remaining", "0");

        assertThat(h.remaining()).isZero();
        assertThat(h.resetMicros()).isEqualTo(5_000_000);
        assertThat(h.serverWaitMicros()).isEqualTo(5_000_000);
    }

    @Test
    void aResetOfZeroMeansTheQuotaIsBackNowNotUnknown() {
        assertThat(hints("RateLimit", "\"a\";r=0;t=0").serverWaitMicros()).isZero();
        assertThat(hints("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "0").serverWaitMicros()).isZero();
        assertThat(hints("RateLimit", "\"a\";r=0;t=0", "RateLimit-Policy", "\"a\";q=10;w=10").paceMicros(0.1))
                .as("nothing to wait for: the quota is back").isZero();
    }

    @Test
    void theIetfFieldsWinOverTheXFieldsEvenWhenTheySayZero() {
        RateLimitHints h = hints("RateLimit", "\"a\";r=0;t=0", "RateLimit-Policy", "\"a\";q=0;w=10",
                "X-RateLimit-Limit", "10", "X-RateLimit-Reset", String.valueOf(NOW / 1_000_000 + 30));

        assertThat(h).isEqualTo(new RateLimitHints(-1, 0, 0, 0, 10_000_000));
    }

    @Test
    void pacesTheRemainingRequestsOverTheTimeUntilTheQuotaIsBackWhenThatIsFasterThanTheAverageRate() {
        // 1 left, back in 1 s: 0.5 s apart; the policy's average rate (10 in 10 s) would be 1 s.
        RateLimitHints h = hints("RateLimit", "\"a\";r=1;t=1", "RateLimit-Policy", "\"a\";q=10;w=10");

        assertThat(h.paceMicros(0.1)).isEqualTo(500_000);
    }

    @Test
    void aPolicyWithoutAUsableWindowOrQuotaPacesByTheResetAlone() {
        assertThat(hints("RateLimit", "\"a\";r=0;t=5", "RateLimit-Policy", "\"a\";q=10;w=0").paceMicros(0.1))
                .as("w=0").isEqualTo(5_000_000);
        assertThat(hints("RateLimit", "\"a\";r=0;t=5", "RateLimit-Policy", "\"a\";q=0;w=10").paceMicros(0.1))
                .as("q=0").isEqualTo(5_000_000);
    }

    @Test
    void aRetryAfterOfTwelveDigitsIsReadAsItSays() {
        assertThat(RateLimitHints.retryAfterMicros("100000000000", NOW)).isEqualTo(100_000_000_000_000_000L);
    }

    @Test
    void aFieldOfExactlyTheMaximumLengthIsStillRead() {
        String item = "\"x\";r=1;t=1";
        String field = item + " ".repeat(4096 - item.length());

        assertThat(field).hasSize(4096);
        assertThat(RateLimitHints.items(field)).extracting(RateLimitHints.Item::name).containsExactly("x");
    }

    @Test
    void anEmptyQuotedNameIsAName() {
        assertThat(RateLimitHints.items("\"\";q=1")).extracting(RateLimitHints.Item::name).containsExactly("");
    }

    @Test
    void aBackslashAtTheEndOfAQuotedStringIsIgnoredNotACrash() {
        assertThat(hints("RateLimit", "\"a\\", "X-RateLimit-Remaining", "4").remaining()).isEqualTo(4);
    }

    @Test
    void theShareOfAnItemUsesTheFirstPolicyOfItsNameThatGivesAQuota() {
        RateLimitHints h = hints("RateLimit", "\"a\";r=1;t=9, \"b\";r=40;t=9",
                "RateLimit-Policy", "\"a\";w=10, \"a\";q=0;w=10, \"a\";q=100;w=10, \"b\";q=100;w=10");

        assertThat(h.remaining()).as("1 of 100 is less than 40 of 100").isEqualTo(1);
    }

    private static RateLimitHints fields(Map<String, List<String>> fields) {
        return RateLimitHints.from(HttpHeaders.of(new HashMap<>(fields), (a, b) -> true), NOW);
    }

    private static RateLimitHints hints(String... nameValues) {
        Map<String, List<String>> map = new HashMap<>();
        for (int i = 0; i < nameValues.length; i += 2) {
            map.put(nameValues[i], List.of(nameValues[i + 1]));
        }
        return RateLimitHints.from(HttpHeaders.of(map, (a, b) -> true), NOW);
    }
}
