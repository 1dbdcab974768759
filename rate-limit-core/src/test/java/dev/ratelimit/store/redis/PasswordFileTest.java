package dev.ratelimit.store.redis;

import dev.ratelimit.InvalidConfigurationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a password file holds and what is said at a login that cannot use it: from a review, which
 * found a byte order mark and trailing spaces taken into the password, a FIFO blocking the start-up,
 * a whole (large) file read at each login, and a file that could no longer be read in silence.
 */
class PasswordFileTest {
    @TempDir
    Path dir;
    private final List<String> lines = new ArrayList<>();
    private final OutageLog.Lines log = new RecordedLines(lines);

    @Test
    void thePasswordIsTheFirstLineWithoutAByteOrderMarkOrALineEnding() throws IOException {
        assertThat(PasswordFile.of(write("\uFEFFs3cret\r\nsecond line"), "r", log).current()).isEqualTo("s3cret");
        assertThat(PasswordFile.of(write("pass word with spaces"), "r", log).current()).isEqualTo("pass word with spaces");
        assertThat(lines).isEmpty();
    }

    @Test
    void aFileThatHoldsNoUsablePasswordFailsTheBuildNamingTheFileNeverItsContent() throws IOException {
        for (String content : new String[] {"", "\nhunter2", "   \n", "hunter2 \n", " hunter2", "x".repeat(PasswordFile.MAX_CHARS + 1)}) {
            Path file = write(content);
            assertThatThrownBy(() -> PasswordFile.of(file, "r", log))
                    .isInstanceOf(InvalidConfigurationException.class)
                    .hasMessageStartingWith("passwordFile: ").hasMessageEndingWith(file.toString())
                    .hasMessageNotContaining("hunter2").hasMessageNotContaining("xxx");
        }
        assertThatThrownBy(() -> PasswordFile.of(dir, "r", log))
                .hasMessage("passwordFile: cannot be read (not a regular file), was " + dir);
    }

    @Test
    void aFifoIsRefusedWithoutBlocking() throws Exception {
        Path fifo = dir.resolve("fifo");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertThat(mkfifo.waitFor()).isZero();
        assertThatThrownBy(() -> PasswordFile.of(fifo, "r", log)).hasMessageContaining("not a regular file");
    }

    @Test
    void onlyTheFirstLineIsReadSoTheRestMayBeAnything() throws IOException {
        byte[] notUtf8 = {(byte) 0xC3, (byte) 0x28, (byte) 0xFF};
        Path file = dir.resolve("pw");
        Files.write(file, ("s3cret\n").getBytes(StandardCharsets.UTF_8));
        Files.write(file, notUtf8, java.nio.file.StandardOpenOption.APPEND);
        assertThat(PasswordFile.of(file, "r", log).current()).isEqualTo("s3cret");
    }

    @Test
    void aLoginThatCannotUseTheFileKeepsTheLastPasswordAndSaysSoOnceUntilItCan() throws IOException {
        Path file = write("old-s3cret\n");
        PasswordFile password = PasswordFile.of(file, "redis://***@h:1", log);
        Files.delete(file);
        assertThat(password.current()).isEqualTo("old-s3cret");
        assertThat(password.current()).isEqualTo("old-s3cret");
        Files.writeString(file, "");
        assertThat(password.current()).isEqualTo("old-s3cret");
        Files.writeString(file, "new-s3cret\n");
        assertThat(password.current()).isEqualTo("new-s3cret");
        assertThat(password.current()).isEqualTo("new-s3cret");

        assertThat(lines).containsExactly(
                "WARN Redis store redis://***@h:1: its password file " + file + " cannot be read (NoSuchFileException); "
                        + "logging in with the last password read from it",
                "INFO Redis store redis://***@h:1: its password file " + file + " can be used again",
                "INFO Redis store redis://***@h:1 read a new password from " + file + "; connections log in with it from now on");
        assertThat(String.join("\n", lines)).doesNotContain("s3cret");
    }

    private Path write(String content) throws IOException {
        return Files.writeString(Files.createTempFile(dir, "pw", ""), content);
    }
}
