package dev.ratelimit.store.redis;

import dev.ratelimit.Clock;
import dev.ratelimit.Durations;
import dev.ratelimit.FailureMode;
import dev.ratelimit.InvalidConfigurationException;
import dev.ratelimit.Limit;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimitStore;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.StoreHealth;
import dev.ratelimit.store.memory.MemoryStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.SslOptions;
import redis.clients.jedis.UnifiedJedis;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Keeps limit state in Redis, so that every instance of a service shares each client's quota.
 *
 * <p>Each decision is one atomic Lua call (FCALL of a Redis Functions library on Redis 7+, else
 * EVALSHA of a script), timed by the Redis server's clock
 * ({@code TIME}), with the same decisions as the in-memory store for the same sequence of requests.
 * Every key expires once forgetting it changes nothing; client ids are hashed before they become
 * part of a key. Single node, Redis Cluster (a limit's keys for one client share a hash tag) and
 * Sentinel are chosen by the URL:
 *
 * <pre>{@code
 * RedisStore store = RedisStore.builder()
 *         .url("redis://:secret@redis.internal:6379/0")   // or redis-cluster://h1:7000,h2:7000
 *         .failureMode(FailureMode.LOCAL_FALLBACK)       // the default
 *         .fallbackShare(1.0 / 4)                         // 4 instances: each enforces 1/4 alone
 *         .build();
 * RateLimiter login = store.limiter(Limit.of("login", Policy.fixedWindow(5, Duration.ofMinutes(1))));
 * Decision d = login.tryAcquire("ip:203.0.113.7");
 * }</pre>
 *
 * <p>When Redis fails (refused, timed out after the read timeout, or its circuit breaker open), no
 * exception reaches the caller: the decision follows the {@link FailureMode}. A local denial cache
 * answers repeat requests of a client that Redis has just denied, without a Redis call, until the
 * earliest moment they could pass. See the README's "Redis store" section for keys, memory and operations.
 */
public final class RedisStore implements RateLimitStore {
    private static final Logger LOG = LoggerFactory.getLogger(RedisStore.class);
    /** TTL slack when decisions are timed by a manual clock that may run slower than Redis' own. */
    private static final long CLOCK_MODE_TTL_SLACK_MILLIS = 600_000;

    /** What every limiter of one store shares. */
    record Settings(String keyPrefix, ClientHash clientHash, Clock clock, boolean timeFromClock, long ttlSlackMillis,
                    boolean denialCache, FailureMode failureMode, RateLimitListener listener, Breakers breakers, Connections connections,
                    CallBatcher calls, FunctionLibrary library, OutageLog outages) {
    }

    private final Settings settings;
    private final String description;
    private final double fallbackShare;
    private final ConcurrentMap<String, RedisRateLimiter> limiters = new ConcurrentHashMap<>();
    /** The eviction policies {@link #checkConnection()} warned of (once each). */
    private final Set<String> evictionWarnings = ConcurrentHashMap.newKeySet();
    private volatile MemoryStore fallbackStore;

    private RedisStore(Builder b, Connections connections, String description) {
        this.description = description;
        this.fallbackShare = b.fallbackShare;
        RateLimitListener listener = b.listener;
        FailureMode mode = b.failureMode;
        Clock clock = b.clock;
        OutageLog outages = new OutageLog(OutageLog.Lines.to(LOG), description, mode);
        Breakers breakers = new Breakers(b.breakerFailures, Durations.toMicros(b.breakerOpenFor), clock, connections::nodeOf,
                node -> connections.ownsSlots((HostAndPort) node),
                (previous, current, cause) -> healthChanged(listener, outages, previous, current, cause, clock.nowMicros()));
        ClientHash clientHash = b.clientKeySecret == null ? ClientHash.sha256()
                : ClientHash.hmacSha256(b.clientKeySecret.getBytes(StandardCharsets.UTF_8));
        this.settings = new Settings(b.keyPrefix, clientHash, b.clock, b.timeFromClock,
                b.timeFromClock ? CLOCK_MODE_TTL_SLACK_MILLIS : 0, b.denialCache, mode, listener, breakers, connections,
                new CallBatcher(b.pipelining, connections::isClosed, connections::clusterSlots, b.readTimeout), new FunctionLibrary(description, clock), outages);
    }

    /**
     * A builder; {@link Builder#url} (or {@link Builder#client}) is required.
     *
     * @return a new builder with the defaults
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The store's health: whether Redis answers, fails, or is skipped by the open circuit breaker, as
     * of the last decision that called Redis (or was refused by the breaker), or a failed
     * {@link #checkConnection()} since; reading it calls nothing.
     *
     * @return the health
     */
    public StoreHealth health() {
        return settings.breakers().health();
    }

    /**
     * Connects now (unless connected) and makes one decision call for a request that can never pass
     * (on a Redis Cluster the store created, one on each master), which Redis answers without writing
     * anything: it needs what every decision needs (the password,
     * TLS, the right to run the decision script, loading it where missing, and to read a key under the
     * key prefix, and the {@code TIME} and {@code GET} it sends), so that the README's least ACL user
     * passes it and a user whose key patterns leave out the prefix does not. Commands that only write
     * ({@code SET}, {@code ZADD}...) show at the first request that passes. Decisions never need this:
     * call it at start-up to learn of a wrong URL, password, TLS setting or ACL then, not from the first
     * request's outage warning. Each round trip waits at most the connect and read timeouts (of each
     * sentinel or seed node it must ask first); a first check may make three, as a first decision
     * does, to load the decision code or fall back to scripts.
     *
     * <p>A check that passes then asks Redis for {@code INFO memory} (where the user may: the least ACL
     * user need not) and logs a warning if Redis may evict the store's keys when it is full (a
     * {@code maxmemory} with a {@code maxmemory-policy} other than {@code noeviction}; once per store and
     * policy): a client whose key is evicted gets its whole quota back.
     *
     * <p>A failed check makes {@link #health()} {@link StoreHealth#DEGRADED} (the listener is told; the
     * store does not log it, the exception is yours to log, but logs the outage's end) until a call or a
     * check succeeds, so that a readiness probe sees it before the first decision does. It opens no
     * circuit breaker: decisions still try Redis. A check that passes changes nothing else: an open
     * breaker stays open until its probe succeeds. A check on a closed store, or one whose thread was
     * interrupted, changes nothing.
     *
     * @throws IllegalStateException when Redis does not answer or answers an error, naming the store
     *         (never its password) and why
     */
    public void checkConnection() {
        List<String> evicting;
        try {
            evicting = ConnectionCheck.run(settings);
        } catch (RuntimeException e) {
            if (!settings.connections().isClosed() && !CallFailure.isCancellation(e)) {
                settings.breakers().onCheck(new OutageLog.CheckFailed(e));
            }
            throw new IllegalStateException("Redis store " + description + " failed its connection check: "
                    + CheckFailure.why(e, settings.keyPrefix(), description.startsWith("rediss")), e);
        }
        if (settings.connections().isClosed()) {
            return; // closed while the check was under way: changes nothing
        }
        settings.breakers().onCheck(null);
        for (String memory : evicting) {
            if (!evictionWarnings.add(memory)) {
                continue; // said once per store: a check made periodically would repeat it
            }
            LOG.warn("Redis store {} may evict its keys ({}): when Redis is full it evicts keys, and a client whose key "
                    + "is evicted gets its whole quota back; give the rate limiter a Redis with maxmemory-policy noeviction "
                    + "(README: \"Redis memory and eviction\")", description, memory);
        }
    }

    /**
     * A limiter for {@code limit}. Limiters of one name share a client's state in Redis wherever their
     * policies' state means the same (same algorithm, and window or rate): see the README's "Keys".
     */
    @Override
    public RateLimiter limiter(Limit limit) {
        return limiters.computeIfAbsent(limit.name() + '/' + limit.fingerprint(),
                id -> {
                    Limit share = FallbackLimits.scale(limit, fallbackShare);
                    return new RedisRateLimiter(limit, share, settings, () -> fallbackLimiter(share));
                });
    }

    /**
     * Closes the Redis connections this store opened (not a client passed to {@link Builder#client});
     * closing again does nothing. The store cannot be reopened: its limiters then answer by the
     * {@link FailureMode} without calling Redis, and never throw. That is no outage (health, the
     * circuit breakers and the listener's store metrics are left alone); the first use after close
     * logs one warning.
     */
    @Override
    public void close() {
        settings.connections().close();
    }

    private RateLimiter fallbackLimiter(Limit share) {
        MemoryStore store = fallbackStore;
        if (store == null) {
            synchronized (this) {
                if (fallbackStore == null) {
                    fallbackStore = MemoryStore.builder().clock(settings.clock()).build();
                }
                store = fallbackStore;
            }
        }
        return store.limiter(share);
    }

    private static void healthChanged(RateLimitListener listener, OutageLog outages, StoreHealth previous, StoreHealth current,
                                      Throwable cause, long now) {
        // One line when an outage starts, one when the breaker opens, one when it ends: never per request.
        outages.changed(previous, current, cause, now);
        if (listener != RateLimitListener.NONE) {
            try {
                listener.onHealthChange(previous, current);
            } catch (Exception | LinkageError ignored) {
                // a listener must not break the store (checked exceptions too: Kotlin or Groovy throw them undeclared)
            }
        }
    }

    @Override
    public String toString() {
        return "RedisStore[" + description + ", failureMode=" + settings.failureMode() + ", health=" + health() + "]";
    }

    /**
     * Options of a {@link RedisStore}. Each setter validates its argument and throws an
     * {@link InvalidConfigurationException} naming the field and the bad value.
     */
    public static final class Builder {
        /** Default connect and read timeouts. */
        public static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(100);
        /** Default consecutive failures that open the circuit breaker. */
        public static final int DEFAULT_BREAKER_FAILURES = 5;
        /** Default time the circuit breaker stays open before one probe call. */
        public static final Duration DEFAULT_BREAKER_OPEN_FOR = Duration.ofSeconds(1);
        /** Default connections per Redis node. */
        public static final int DEFAULT_POOL_SIZE = 16;
        private static final Duration MAX_TIMEOUT = Duration.ofSeconds(60);

        private static final String DEFAULT_KEY_PREFIX = "rl:";

        private String url;
        private RedisUrl parsedUrl;
        private UnifiedJedis client;
        private String keyPrefix = DEFAULT_KEY_PREFIX;
        private String clientKeySecret;
        private FailureMode failureMode = FailureMode.LOCAL_FALLBACK;
        private double fallbackShare = 1.0;
        private boolean fallbackShareSet;
        private Duration connectTimeout = DEFAULT_TIMEOUT;
        private Duration readTimeout = DEFAULT_TIMEOUT;
        private boolean denialCache = true;
        private boolean pipelining = true;
        private int breakerFailures = DEFAULT_BREAKER_FAILURES;
        private Duration breakerOpenFor = DEFAULT_BREAKER_OPEN_FOR;
        private RateLimitListener listener = RateLimitListener.NONE;
        private Clock clock = Clock.system();
        private boolean timeFromClock;
        private int poolSize = DEFAULT_POOL_SIZE;
        private SslOptions sslOptions;
        private Path passwordFile;
        /** The last connection option set (timeouts, pool, TLS), which a client passed in would ignore. */
        private String connectionOption;

        private Builder() {
        }

        /**
         * Where Redis is: {@code redis://[user:password@]host:port[/db]}, {@code rediss://} for TLS,
         * {@code redis-cluster://[user:password@]host1:port1,host2:port2} (or {@code rediss-cluster://}),
         * {@code redis-sentinel://[user:password@]host1:port1,host2:port2/masterName[/db]}.
         *
         * @param url the Redis URL
         * @return this builder
         * @throws InvalidConfigurationException when the URL is null, blank or malformed (never showing its password)
         */
        public Builder url(String url) {
            this.parsedUrl = RedisUrl.parse(url);
            this.url = url;
            return this;
        }

        /**
         * A Jedis client you created and close yourself, instead of {@link #url}: for tests or a custom
         * set-up. The timeout, pool and TLS options then do not apply: {@link #build()} refuses them.
         *
         * @param client the client; the store does not close it
         * @return this builder
         * @throws InvalidConfigurationException if {@code client} is null
         */
        public Builder client(UnifiedJedis client) {
            if (client == null) {
                throw new InvalidConfigurationException("client", "must not be null");
            }
            this.client = client;
            return this;
        }

        /**
         * Prepended to every key (default {@code rl:}): 1 to 64 printable characters, no spaces or braces,
         * ending with {@code :} (not empty: in a database others share, nothing would tell our keys from
         * theirs; and a limit name, which cannot hold {@code :}, could otherwise extend one prefix into
         * another: {@code rl:} + {@code shop-login} is {@code rl:shop-} + {@code login}).
         *
         * @param prefix the key prefix
         * @return this builder
         * @throws InvalidConfigurationException when the prefix is null or breaks those rules
         */
        public Builder keyPrefix(String prefix) {
            if (prefix == null || prefix.length() > 64 || !prefix.matches("[\\x21-\\x7A\\x7C\\x7E]*:")) {
                throw new InvalidConfigurationException("keyPrefix", "must be 1 to 64 printable ASCII characters"
                        + " without spaces or braces (braces would break Redis Cluster hash tags), ending with ':'"
                        + " (so that no prefix and limit name spell another's), was "
                        + (prefix == null ? "null" : "\"" + prefix.replaceAll("\\p{Cntrl}", "?") + "\""));
            }
            this.keyPrefix = prefix;
            return this;
        }

        /**
         * Hashes client ids with HMAC-SHA-256 under {@code secret} instead of plain SHA-256 (the
         * default), so that whoever can read Redis cannot test candidate ids against its keys: without
         * a secret, every IPv4 address or a guessed API key can be hashed and looked for. Every instance
         * sharing the limits needs the same secret; setting or changing it starts every client from
         * fresh state (the old keys expire by themselves). At least 16 characters, with no white space
         * at either end (the filter's init-param and the example app read it trimmed, so such a secret
         * would hash differently there: a newline read from a file, say); errors never echo it.
         *
         * @param secret the secret, 16 characters or more
         * @return this builder
         * @throws InvalidConfigurationException when it is null, shorter, or begins or ends with white space
         */
        public Builder clientKeySecret(String secret) {
            if (secret == null || secret.length() < 16) {
                throw new InvalidConfigurationException("clientKeySecret", "must be at least 16 characters, was "
                        + (secret == null ? "null" : secret.length() + " characters"));
            }
            if (!secret.equals(secret.trim())) {
                throw new InvalidConfigurationException("clientKeySecret", "must not begin or end with white space "
                        + "(a newline read from a file?): instances given it trimmed would hash client ids differently");
            }
            this.clientKeySecret = secret;
            return this;
        }

        /**
         * What to decide while Redis is unavailable (default {@link FailureMode#LOCAL_FALLBACK}).
         *
         * @param mode the failure mode
         * @return this builder
         * @throws InvalidConfigurationException if {@code mode} is null
         */
        public Builder failureMode(FailureMode mode) {
            if (mode == null) {
                throw new InvalidConfigurationException("failureMode", "must not be null");
            }
            this.failureMode = mode;
            return this;
        }

        /**
         * This instance's share of each limit under {@link FailureMode#LOCAL_FALLBACK}, in (0, 1]
         * (default 1.0): with N instances, 1/N keeps the total near the limit while Redis is down.
         * Setting it under another failure mode, where it would do nothing, fails {@link #build()}.
         *
         * @param share the share, in (0, 1]
         * @return this builder
         * @throws InvalidConfigurationException when it is out of range
         */
        public Builder fallbackShare(double share) {
            if (!(share > 0 && share <= 1)) {
                throw new InvalidConfigurationException("fallbackShare", "must be in (0, 1], was " + share);
            }
            this.fallbackShare = share;
            this.fallbackShareSet = true;
            return this;
        }

        /**
         * How long to wait for a connection to Redis (default 100 ms).
         *
         * @param d the timeout: 1 ms to 60 s, whole milliseconds
         * @return this builder
         * @throws InvalidConfigurationException when it is null or out of range
         */
        public Builder connectTimeout(Duration d) {
            this.connectTimeout = timeout("connectTimeout", d);
            this.connectionOption = "connectTimeout";
            return this;
        }

        /**
         * How long to wait for a reply, and for a free pooled connection (default 100 ms).
         *
         * @param d the timeout: 1 ms to 60 s, whole milliseconds
         * @return this builder
         * @throws InvalidConfigurationException when it is null or out of range
         */
        public Builder readTimeout(Duration d) {
            this.readTimeout = timeout("readTimeout", d);
            this.connectionOption = "readTimeout";
            return this;
        }

        /**
         * Whether to answer repeat requests of a denied client locally until they could pass (default true).
         *
         * @param enabled whether to keep the denial cache
         * @return this builder
         */
        public Builder denialCache(boolean enabled) {
            this.denialCache = enabled;
            return this;
        }

        /**
         * Whether concurrent decisions share round trips (default true): callers that arrive while
         * others wait for Redis send their script calls together as one pipeline. Each decision stays
         * one atomic script call; a lone caller sends at once and waits for nothing else. Under
         * concurrency it cuts Redis' per-call work (system calls, reads, writes) and raises
         * throughput; see the README's Redis section. On a Redis Cluster the store connects to itself,
         * calls are batched per master (a client passed in with {@link #client} is pipelined only
         * when it is a {@code RedisClient} or a {@code RedisSentinelClient}).
         *
         * @param enabled whether to pipeline concurrent calls
         * @return this builder
         */
        public Builder pipelining(boolean enabled) {
            this.pipelining = enabled;
            return this;
        }

        /**
         * Opens the circuit after {@code consecutiveFailures} failed calls in a row (default 5) and keeps
         * it open for {@code openFor} (default 1 s; 1 ms to 1 h, whole milliseconds) before one probe call.
         *
         * @param consecutiveFailures failures in a row that open it, {@code >= 1}
         * @param openFor             how long it stays open
         * @return this builder
         * @throws InvalidConfigurationException when either is out of range
         */
        public Builder circuitBreaker(int consecutiveFailures, Duration openFor) {
            if (consecutiveFailures < 1) {
                throw new InvalidConfigurationException("circuitBreaker.consecutiveFailures",
                        "must be >= 1, was " + consecutiveFailures);
            }
            if (openFor == null || openFor.compareTo(Duration.ofMillis(1)) < 0 || openFor.compareTo(Duration.ofHours(1)) > 0) {
                throw new InvalidConfigurationException("circuitBreaker.openFor",
                        "must be between 1 ms and PT1H, was " + openFor);
            }
            if (openFor.getNano() % 1_000_000 != 0) {
                // As the timeouts: 999 ns would otherwise become an open period of 0 µs, a probe on every call.
                throw new InvalidConfigurationException("circuitBreaker.openFor", "must be whole milliseconds, was " + openFor);
            }
            this.breakerFailures = consecutiveFailures;
            this.breakerOpenFor = openFor;
            return this;
        }

        /**
         * Hears store calls, errors and health changes (default {@link RateLimitListener#NONE}).
         *
         * @param listener the listener
         * @return this builder
         * @throws InvalidConfigurationException if {@code listener} is null
         */
        public Builder listener(RateLimitListener listener) {
            if (listener == null) {
                throw new InvalidConfigurationException("listener", "must not be null (use RateLimitListener.NONE)");
            }
            this.listener = listener;
            return this;
        }

        /**
         * Local time for the denial cache, the circuit breaker and the fallback store (default {@link Clock#system()}).
         *
         * @param clock the clock
         * @return this builder
         * @throws InvalidConfigurationException if {@code clock} is null
         */
        public Builder clock(Clock clock) {
            if (clock == null) {
                throw new InvalidConfigurationException("clock", "must not be null");
            }
            this.clock = clock;
            return this;
        }

        /**
         * For tests only: decisions are timed by {@link #clock} instead of Redis {@code TIME}, so a
         * manual clock drives them (as in the store contract test). Never in production: instances
         * with skewed clocks would disagree.
         *
         * @param enabled whether decisions read {@link #clock}
         * @return this builder
         */
        public Builder timeFromClock(boolean enabled) {
            this.timeFromClock = enabled;
            return this;
        }

        /**
         * Pooled connections per Redis node (default 16).
         *
         * @param size the pool size, 1 to 1024
         * @return this builder
         * @throws InvalidConfigurationException when it is out of range
         */
        public Builder poolSize(int size) {
            if (size < 1 || size > 1024) {
                throw new InvalidConfigurationException("poolSize", "must be in 1..1024, was " + size);
            }
            this.poolSize = size;
            this.connectionOption = "poolSize";
            return this;
        }

        /**
         * TLS settings for {@code rediss://} URLs, e.g. a trust store with a private CA, or a key store
         * with the client certificate of a server that asks for one ({@code SslOptions.builder()
         * .truststore(...).keystore(...)}). By default the JVM's default SSL context is used, as by its
         * HTTPS clients: the trust store and key store of the {@code javax.net.ssl.*} system properties,
         * with full verification of the server's certificate and host name. With a
         * URL that is not TLS ({@code redis://}, {@code redis-cluster://}, {@code redis-sentinel://}),
         * where they would do nothing, {@link #build()} fails.
         *
         * @param options the TLS settings
         * @return this builder
         * @throws InvalidConfigurationException if {@code options} is null
         */
        public Builder sslOptions(SslOptions options) {
            if (options == null) {
                throw new InvalidConfigurationException("sslOptions", "must not be null");
            }
            this.sslOptions = options;
            this.connectionOption = "sslOptions";
            return this;
        }

        /**
         * Reads the password from {@code file} each time a connection logs in, instead of from the URL, so
         * that replacing the file (a Kubernetes secret mounted as a volume is updated in place) rotates
         * the password without a restart: connections logged in stay so, new ones use the new password.
         * The password is the file's first line (UTF-8, a byte order mark dropped), without its line
         * ending, neither blank nor with white space at either end, at most 4096 characters; only a regular
         * file is read. The URL then holds no password: {@code redis://user@host:6379} for an ACL user,
         * {@code redis://host:6379} for the default user (on Sentinel, the master's user, as the URL's
         * credentials are). {@link #build()} reads the file once and fails naming it (never its content)
         * if it cannot be so read; later, a file that cannot be (deleted, or caught empty while being
         * replaced) leaves the last password read in use, with a warning in the store's log, and a new
         * password read is logged (never its value).
         *
         * @param file the password file
         * @return this builder
         * @throws InvalidConfigurationException if {@code file} is null
         */
        public Builder passwordFile(Path file) {
            if (file == null) {
                throw new InvalidConfigurationException("passwordFile", "must not be null");
            }
            this.passwordFile = file;
            this.connectionOption = "passwordFile";
            return this;
        }

        /**
         * The store; connections open on first use, so it builds while Redis is down.
         *
         * @return the store
         * @throws InvalidConfigurationException when neither or both of url and client are set, or an option
         *                                       set does not apply (a connection option with a client, the
         *                                       fallback share under another failure mode, TLS settings with
         *                                       a URL that is not TLS, a password file with a URL that holds a
         *                                       password), a URL names a user but no password without a password
         *                                       file, or the password file cannot be read
         * @throws IllegalStateException         when Jedis (8 or later) or commons-pool2 is missing from the
         *                                       class path, or Jedis is older than 8
         */
        public RedisStore build() {
            JedisVersion.check();
            if (client != null && parsedUrl != null) {
                throw new InvalidConfigurationException("client", "set either url or client, not both; url was "
                        + RedisUrl.mask(url));
            }
            if (client != null && connectionOption != null) {
                // Not ignored: the code would read as if the client passed in waited, pooled or encrypted so.
                throw new InvalidConfigurationException(connectionOption, "applies only to a store made from a url; "
                        + "a client passed in keeps its own settings");
            }
            if (client == null && parsedUrl == null) {
                throw new InvalidConfigurationException("url", "must be set (or pass a client), was null");
            }
            if (fallbackShareSet && failureMode != FailureMode.LOCAL_FALLBACK) {
                throw new InvalidConfigurationException("fallbackShare", "applies only to failureMode LOCAL_FALLBACK, but "
                        + "failureMode is " + failureMode + "; was " + fallbackShare);
            }
            if (sslOptions != null && parsedUrl != null && !parsedUrl.tls()) {
                // Not ignored: the connections, password included, would go unencrypted while the code reads as TLS.
                throw new InvalidConfigurationException("sslOptions", "apply only to a TLS URL (rediss://, rediss-cluster://), "
                        + "but url is " + RedisUrl.mask(url) + ", whose connections are not encrypted");
            }
            // Applications sharing one Redis keep apart by their prefixes: their log lines say which is which.
            String prefix = keyPrefix.equals(DEFAULT_KEY_PREFIX) ? "" : " with key prefix " + keyPrefix;
            if (client != null) {
                return new RedisStore(this, Connections.wrap(client),
                        "(client " + (client.getClass().getSimpleName().isEmpty() ? client.getClass().getName()
                                : client.getClass().getSimpleName()) + ")" + prefix);
            }
            PasswordFile password = PasswordFile.forUrl(parsedUrl, url, passwordFile, parsedUrl + prefix, OutageLog.Lines.to(LOG));
            return new RedisStore(this, Connections.of(parsedUrl, connectTimeout, readTimeout, poolSize, sslOptions, password),
                    parsedUrl + prefix);
        }

        private static Duration timeout(String field, Duration d) {
            // Compared, not converted: toMillis() overflows (ArithmeticException) for durations beyond 292 million years.
            if (d == null || d.compareTo(Duration.ofMillis(1)) < 0 || d.compareTo(MAX_TIMEOUT) > 0) {
                throw new InvalidConfigurationException(field, "must be between 1 ms and 60 s, was " + d);
            }
            if (d.getNano() % 1_000_000 != 0) {
                // Jedis waits in whole milliseconds: 1999 µs would silently become 1 ms.
                throw new InvalidConfigurationException(field, "must be whole milliseconds (Jedis waits in ms), was " + d);
            }
            return d;
        }
    }
}
