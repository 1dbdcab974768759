package dev.ratelimit.store.redis;

import dev.ratelimit.InvalidConfigurationException;

import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A Redis password read from a file each time a connection logs in, so that replacing the file (a
 * Kubernetes secret updated in place, a secrets agent) rotates the password without a restart. The
 * password is the file's first line (UTF-8, a byte order mark dropped), without its line ending, at
 * most {@value #MAX_CHARS} characters, neither blank nor with white space at either end. Only a
 * regular file is read (a FIFO would block a login), and only its first line.
 *
 * <p>When a connection logs in and the file cannot be read or its first line is not such a password
 * (deleted, caught empty while being replaced), the last password read stays in use and a warning
 * says so, once until the file can be used again; a new password read is said too (info). Neither the
 * password nor the file's content is ever shown.
 */
final class PasswordFile {
    /** The longest password read; a longer first line is refused (a file of something else). */
    static final int MAX_CHARS = 4096;

    private final Path file;
    private final String store;
    private final OutageLog.Lines log;
    private volatile String last;
    /** The file could not be used at the last login; guarded by this. */
    private boolean failing;

    private PasswordFile(Path file, String password, String store, OutageLog.Lines log) {
        this.file = file;
        this.last = password;
        this.store = store;
        this.log = log;
    }

    /**
     * The password file a store made from {@code parsedUrl} (as written: {@code url}) logs in with: null
     * when {@code file} is null, the URL's own password then applying.
     *
     * @throws InvalidConfigurationException when the URL names a user without a password and there is no
     *                                       file, when it holds a password beside a file, or as {@link #of}
     */
    static PasswordFile forUrl(RedisUrl parsedUrl, String url, Path file, String store, OutageLog.Lines log) {
        if (file == null) {
            if (parsedUrl.user() != null && parsedUrl.password() == null) {
                throw new InvalidConfigurationException("url", "names a user without a password: write user:password@ "
                        + "(:password@ for the default user), or set passwordFile to read it from a file, was " + RedisUrl.mask(url));
            }
            return null;
        }
        if (parsedUrl.password() != null) {
            throw new InvalidConfigurationException("passwordFile", "is set, but the url holds a password too: leave it "
                    + "out of the url (user@host for an ACL user, no credentials for the default user); was " + file);
        }
        return of(file, store, log);
    }

    /**
     * The password file at {@code file}, read once now; {@code store} is the store's description, and
     * {@code log} where the lines said at later logins go (the store's logger).
     *
     * @throws InvalidConfigurationException naming {@code passwordFile} and the path when the file cannot be
     *                                       read or does not hold a password on its first line
     */
    static PasswordFile of(Path file, String store, OutageLog.Lines log) {
        String password;
        try {
            password = read(file);
        } catch (IOException | RuntimeException e) {
            throw new InvalidConfigurationException("passwordFile", "cannot be read (" + why(e) + "), was " + file);
        }
        String problem = problem(password);
        if (problem != null) {
            throw new InvalidConfigurationException("passwordFile", problem + "; was " + file);
        }
        return new PasswordFile(file, password, store, log);
    }

    /** The password as the file holds it now, or the last one read if it cannot be used now. */
    String current() {
        String password = null;
        String problem;
        try {
            password = read(file);
            problem = problem(password);
        } catch (IOException | RuntimeException e) {
            problem = "cannot be read (" + why(e) + ")";
        }
        synchronized (this) {
            if (problem != null) {
                if (!failing) {
                    failing = true;
                    log.warn("Redis store " + store + ": its password file " + shown() + " " + problem
                            + "; logging in with the last password read from it");
                }
                return last;
            }
            if (failing) {
                failing = false;
                log.info("Redis store " + store + ": its password file " + shown() + " can be used again");
            }
            if (!password.equals(last)) {
                last = password;
                log.info("Redis store " + store + " read a new password from " + shown() + "; connections log in with it from now on");
            }
            return last;
        }
    }

    /** Why {@code password}, a first line read, is no password; null if it is one. */
    private static String problem(String password) {
        if (password.isBlank()) {
            return "must hold the password on its first line, but that line is " + (password.isEmpty() ? "empty" : "blank");
        }
        if (!password.equals(password.strip())) {
            return "must hold the password on its first line without white space at either end";
        }
        return null;
    }

    /** The first line of {@code file}, at most {@link #MAX_CHARS} characters, without a byte order mark. */
    private static String read(Path file) throws IOException {
        if (!Files.isRegularFile(file) && Files.exists(file)) {
            throw new IOException("not a regular file");
        }
        StringBuilder line = new StringBuilder();
        try (Reader in = new InputStreamReader(Files.newInputStream(file), StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE))) {
            for (int c; (c = in.read()) != -1 && c != '\n' && c != '\r'; ) {
                if (line.length() == MAX_CHARS) {
                    throw new IOException("its first line is longer than " + MAX_CHARS + " characters");
                }
                line.append((char) c);
            }
        }
        if (line.length() > 0 && line.charAt(0) == '\uFEFF') {
            line.deleteCharAt(0); // written by Windows tools that save "UTF-8 with BOM"
        }
        return line.toString();
    }

    private static String why(Exception e) {
        return e instanceof IOException && e.getClass() == IOException.class ? e.getMessage() : e.getClass().getSimpleName();
    }

    /** The path as a log line shows it: on one line. */
    private String shown() {
        return file.toString().replaceAll("\\p{Cntrl}", "?");
    }

    @Override
    public String toString() {
        return "PasswordFile[" + shown() + "]";
    }
}
