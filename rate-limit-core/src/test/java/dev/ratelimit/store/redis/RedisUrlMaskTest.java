package dev.ratelimit.store.redis;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

class RedisUrlMaskTest {

    @ParameterizedTest(name = "{0} shows as {1}")
    @CsvSource(delimiter = '|', value = {
            "rediss://admin:hunter2@cache:6380/1       | rediss://***@cache:6380/1",
            // the store splits credentials at the last '@', so a password may hold '/' or '@'
            "redis://:s3cr/et@cache:6379/1             | redis://***@cache:6379/1",
            "redis://admin:hun@ter2@cache:6379         | redis://***@cache:6379",
            // a password may hold '?' or '#': a query or fragment starts only after the last '@'
            "redis://default:2024#Winter@cache:6379    | redis://***@cache:6379",
            "redis://admin:1/xK9pQ?z@cache:6379        | redis://***@cache:6379",
            "redis://:867530?9@cache:6379              | redis://***@cache:6379",
            // a typo in the scheme: the store still takes everything before the last '@' for credentials
            "redis:/:hunter2@cache:6379                | ***@cache:6379",
            ":hunter2@cache:6379                       | ***@cache:6379",
            // no '@': a host left out puts the password where the port goes
            "redis://admin:hunter2                     | redis://admin:***",
            "redis://:hunter2                          | redis://:***",
            "redis://:hun/ter2                         | redis://:***",
            "redis-cluster://h1:7000,:hunter2,h3:7002  | redis-cluster://h1:7000,:***",
            "redis://[::1]:hunter2                     | redis://[::1]:***",
            "redis:/admin:hunter2                      | redis:***",
            // a host left out hides any port after it, digits too
            "redis://:123456                           | redis://:***",
            "redis://:/hunter2                         | redis://:***",
            // a query or fragment: never the store's, often a password elsewhere
            "redis://cache?password=hunter2            | redis://cache?***",
            "rediss://cache:6380/0?password=hunter2    | rediss://cache:6380/0?***",
            "redis://admin:hunter2@cache/0?x=1         | redis://***@cache/0?***",
            "redis://cache#hunter2                     | redis://cache#***",
            "admin:hunter2                             | admin:***",
            // nothing to hide
            "redis://cache:6379/2                      | redis://cache:6379/2",
            "redis-cluster://[::1]:7000,10.0.0.2:7001  | redis-cluster://[::1]:7000,10.0.0.2:7001",
            "redis-sentinel://s1:26379,s2/mymaster     | redis-sentinel://s1:26379,s2/mymaster",
            "cache:6379/0                              | cache:6379/0",
            // the same rules where the text starts with what they look for, or ends right after a host
            "?password=hunter2                         | ?***",
            "#hunter2                                  | #***",
            "#hunter2?x=1                              | #***",
            "@cache:6379                               | ***@cache:6379",
            "://admin:hunter2@cache                    | ://***@cache",
            "redis://@cache                            | redis://***@cache",
            "hunter2@redis://cache                     | ***@redis://cache",
            "hunter2@r://cache                         | ***@r://cache",
            "://:hunter2                               | ://:***",
            ":hunter2                                  | :***",
            "redis://                                  | redis://",
            "redis-cluster://h1:7000,                  | redis-cluster://h1:7000,",
            "redis://[::1]                             | redis://[::1]",
            "redis://[::1                              | redis://[::1"})
    void hidesWhateverMayBeAPassword(String url, String shown) {
        assertThat(RedisUrlMask.mask(url)).isEqualTo(shown);
    }

    @Test
    void nullShowsAsNull() {
        assertThat(RedisUrlMask.mask(null)).isEqualTo("null");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"'redis://cache:6379/\r\nWARN forged'", "'redis://a\nb:pw@cache'"})
    void showsNoLineBreaks(String url) {
        assertThat(RedisUrlMask.mask(url)).doesNotContain("\r").doesNotContain("\n");
    }
}
