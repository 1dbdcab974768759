package dev.ratelimit.store.redis;

import dev.ratelimit.InvalidConfigurationException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A Redis password read from a file each time a connection logs in, so that replacing the file (a
 * Kubernetes secret updated in place, a secrets agent) rotates the password without a restart. The
 * password is the file's first line, without its line ending. A file that cannot be read, or whose
 * first line is empty, when a connection logs in (deleted, or caught half-written) leaves the last
 * password read in use. Neither the password nor the file's content is ever shown.
 */
final class PasswordFile {
    private final Path file;
    private volatile String last;

    private PasswordFile(Path file, String password) {
        this.file = file;
        this.last = password;
    }

    /**
     * The password file at {@code file}, read once now.
     *
     * @throws InvalidConfigurationException naming {@code passwordFile} and the path when it cannot be
     *                                       read or its first line is empty
     */
    static PasswordFile of(Path file) {
        String password;
        try {
            password = read(file);
        } catch (IOException | RuntimeException e) {
            throw new InvalidConfigurationException("passwordFile", "cannot be read (" + e.getClass().getSimpleName()
                    + "), was " + file);
        }
        if (password.isEmpty()) {
            throw new InvalidConfigurationException("passwordFile", "must hold the password on its first line, "
                    + "but that line is empty; was " + file);
        }
        return new PasswordFile(file, password);
    }

    /** The password as the file holds it now, or the last one read if it cannot be read now. */
    String current() {
        try {
            String password = read(file);
            if (!password.isEmpty()) {
                last = password;
            }
        } catch (IOException | RuntimeException unreadable) {
            // Keep the last password: a rotation replaces the file, and a login must not fail in between.
        }
        return last;
    }

    private static String read(Path file) throws IOException {
        String content = Files.readString(file, StandardCharsets.UTF_8);
        int end = 0;
        while (end < content.length() && content.charAt(end) != '\n' && content.charAt(end) != '\r') {
            end++;
        }
        return content.substring(0, end);
    }

    @Override
    public String toString() {
        return "PasswordFile[" + file + "]";
    }
}
