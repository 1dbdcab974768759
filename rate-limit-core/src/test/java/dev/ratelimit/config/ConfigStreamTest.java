package dev.ratelimit.config;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link RateLimitConfig#fromJson(InputStream, String)} reads a stream it does not own: it leaves it open. */
class ConfigStreamTest {
    private static final String JSON = """
            {"endpoints": [{"method": "GET", "path": "/api/scan", "name": "scan"}],
             "tiers": {"free": {"scan": {"algorithm": "fixed_window", "limit": 5, "window": "1m"}}}}
            """;

    @Test
    void leavesTheCallersStreamOpenAsDocumented() throws IOException {
        boolean[] closed = {false};
        InputStream in = new FilterInputStream(new ByteArrayInputStream(JSON.getBytes(StandardCharsets.UTF_8))) {
            @Override
            public void close() throws IOException {
                closed[0] = true;
                super.close();
            }
        };
        RateLimitConfig config = RateLimitConfig.fromJson(in, "test.json");
        assertThat(config.defaultTier()).isEqualTo("free");
        assertThat(closed[0]).as("the Javadoc says the stream is not closed: it is the caller's").isFalse();
    }

    @Test
    void readsOneEntryOfAnArchiveAndTheNextOneStillReads() throws IOException {
        ByteArrayOutputStream zip = new ByteArrayOutputStream();
        try (ZipOutputStream out = new ZipOutputStream(zip)) {
            out.putNextEntry(new ZipEntry("rate-limits.json"));
            out.write(JSON.getBytes(StandardCharsets.UTF_8));
            out.closeEntry();
            out.putNextEntry(new ZipEntry("README.txt"));
            out.write("after the configuration".getBytes(StandardCharsets.UTF_8));
            out.closeEntry();
        }
        try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(zip.toByteArray()))) {
            assertThat(in.getNextEntry().getName()).isEqualTo("rate-limits.json");
            RateLimitConfig config = RateLimitConfig.fromJson(in, "rate-limits.json");
            assertThat(config.tiers()).containsOnlyKeys("free");
            // With the archive closed by fromJson, this throws IOException: Stream closed.
            assertThat(in.getNextEntry().getName()).isEqualTo("README.txt");
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("after the configuration");
        }
    }
}
