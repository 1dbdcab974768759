package dev.ratelimit.config;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ratelimit.Durations;
import dev.ratelimit.InvalidConfigurationException;
import dev.ratelimit.Limit;
import dev.ratelimit.Policy;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads {@link RateLimitConfig} from JSON by walking the tree, so every error names its JSON path
 * ({@code tiers.pro.scan.capacity: must be > 0, was 0}) and unknown fields are errors.
 */
final class ConfigJson {
    /**
     * Strict about duplicate fields; never closes the stream it reads: {@link RateLimitConfig#fromJson(InputStream, String)}
     * documents the stream as the caller's (an entry of a {@code ZipInputStream}, say), and the file and classpath readers
     * close their own. No per-thread buffers: a configuration is read once, often on an application server's own thread,
     * where a buffer Jackson kept for the thread would keep the undeployed application's class loader alive.
     */
    private static final ObjectMapper MAPPER = new ObjectMapper(JsonFactory.builder()
            .disable(JsonFactory.Feature.USE_THREAD_LOCAL_FOR_BUFFER_RECYCLING).build())
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .disable(JsonParser.Feature.AUTO_CLOSE_SOURCE);
    private static final Set<String> TOP = Set.of("defaultTier", "tiers", "tierPrefixes", "endpoints", "unmatched", "allowlist", "shadow");

    private ConfigJson() {
    }

    static RateLimitConfig read(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return read(in, file.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read rate-limit configuration " + file + ": " + reason(e), e);
        }
    }

    /** Why a file could not be read, in words: a NoSuchFileException's message is only the path. */
    private static String reason(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            return f.getReason();
        }
        return e.toString();
    }

    /**
     * Reads classpath resource {@code resource}, looked up first with the thread's context class loader
     * when {@code contextFirst} (in a servlet container, the web application's: its {@code WEB-INF/classes}
     * even when this library is the container's), then with this library's.
     */
    static RateLimitConfig readResource(String resource, boolean contextFirst) {
        ClassLoader context = contextFirst ? Thread.currentThread().getContextClassLoader() : null;
        InputStream fromContext = context == null ? null : context.getResourceAsStream(resource);
        InputStream in = fromContext != null ? fromContext : ConfigJson.class.getClassLoader().getResourceAsStream(resource);
        if (in == null) {
            throw new InvalidConfigurationException("config", "classpath resource not found: " + resource);
        }
        try (in) {
            return read(in, "classpath:" + resource);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read rate-limit configuration classpath:" + resource, e);
        }
    }

    static RateLimitConfig read(InputStream in, String source) throws IOException {
        JsonNode root;
        try (JsonParser parser = MAPPER.createParser(in)) {
            root = MAPPER.readTree(parser);
            // A file is one JSON document: whatever follows it (a second object, a stray bracket) is an
            // error, not silently ignored.
            if (root != null && parser.nextToken() != null) {
                throw new InvalidConfigurationException(source, "is not valid JSON: unexpected content after the end of the "
                        + "configuration object at line " + parser.currentLocation().getLineNr() + ", column "
                        + parser.currentLocation().getColumnNr());
            }
        } catch (JsonProcessingException e) {
            // Jackson places a nested marker as "[Source: REDACTED (...); line: 1, column: 11]": only the line and column say anything.
            String message = String.valueOf(e.getOriginalMessage()).replaceAll("\\[Source: [^\\]]*?; line: (\\d+), column: (\\d+)\\]", "line $1, column $2");
            throw new InvalidConfigurationException(source, "is not valid JSON: " + message
                    + (e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr()));
        }
        if (root == null || !root.isObject()) {
            throw new InvalidConfigurationException(source, "must be a JSON object");
        }
        return config(root);
    }

    private static RateLimitConfig config(JsonNode root) {
        rejectUnknown(root, "", TOP);
        String defaultTier = root.has("defaultTier") ? text(root.get("defaultTier"), "defaultTier") : "free";
        JsonNode tiersNode = required(root, "", "tiers");
        requireObject(tiersNode, "tiers");
        Map<String, Map<String, Limit>> tiers = new LinkedHashMap<>();
        // fieldNames(), not fields() (deprecated since Jackson 2.19) or properties() (only from 2.15).
        for (Iterator<String> it = tiersNode.fieldNames(); it.hasNext(); ) {
            String tier = it.next();
            String tierPath = "tiers." + tier;
            JsonNode tierNode = tiersNode.get(tier);
            requireObject(tierNode, tierPath);
            Map<String, Limit> limits = new LinkedHashMap<>();
            for (Iterator<String> eit = tierNode.fieldNames(); eit.hasNext(); ) {
                String endpoint = eit.next();
                limits.put(endpoint, limit(endpoint, tierNode.get(endpoint), tierPath + "." + endpoint));
            }
            tiers.put(tier, limits);
        }
        Map<String, String> prefixes = new LinkedHashMap<>();
        if (root.has("tierPrefixes")) {
            JsonNode node = root.get("tierPrefixes");
            requireObject(node, "tierPrefixes");
            node.fieldNames().forEachRemaining(name -> prefixes.put(name, text(node.get(name), "tierPrefixes." + name)));
        }
        List<EndpointRule> endpoints = new ArrayList<>();
        if (root.has("endpoints")) {
            JsonNode node = root.get("endpoints");
            requireArray(node, "endpoints");
            for (int i = 0; i < node.size(); i++) {
                endpoints.add(endpointRule(node.get(i), "endpoints[" + i + "]"));
            }
        }
        Optional<Limit> unmatched = Optional.empty();
        if (root.has("unmatched")) {
            JsonNode node = root.get("unmatched");
            if (node.isTextual() && "unlimited".equals(node.asText())) {
                unmatched = Optional.empty();
            } else if (node.isObject() || node.isArray()) {
                unmatched = Optional.of(limit(RateLimitConfig.UNMATCHED_NAME, node, "unmatched"));
            } else {
                throw new InvalidConfigurationException("unmatched", "must be \"unlimited\", a policy or an array of policies, was " + node);
            }
        }
        Allowlist allowlist = root.has("allowlist") ? allowlist(root.get("allowlist")) : Allowlist.NONE;
        boolean shadow = root.has("shadow") && bool(root.get("shadow"), "shadow");
        return new RateLimitConfig(defaultTier, tiers, prefixes, endpoints, unmatched, allowlist, shadow);
    }

    private static Allowlist allowlist(JsonNode node) {
        requireObject(node, "allowlist");
        rejectUnknown(node, "allowlist", Set.of("paths", "clients"));
        return new Allowlist(strings(node.get("paths"), "allowlist.paths"), strings(node.get("clients"), "allowlist.clients"));
    }

    private static List<String> strings(JsonNode node, String path) {
        List<String> out = new ArrayList<>();
        if (node == null) {
            return out;
        }
        requireArray(node, path);
        for (int i = 0; i < node.size(); i++) {
            out.add(text(node.get(i), path + "[" + i + "]"));
        }
        return out;
    }

    private static EndpointRule endpointRule(JsonNode node, String path) {
        requireObject(node, path);
        rejectUnknown(node, path, Set.of("method", "path", "name", "cost", "shadow"));
        try {
            return new EndpointRule(
                    node.has("method") ? text(node.get("method"), path + ".method") : "*",
                    text(required(node, path, "path"), path + ".path"),
                    text(required(node, path, "name"), path + ".name"),
                    node.has("cost") ? whole(node.get("cost"), path + ".cost") : 1,
                    node.has("shadow") && bool(node.get("shadow"), path + ".shadow"));
        } catch (InvalidConfigurationException e) {
            throw e.path().startsWith(path) ? e : e.under(path);
        }
    }

    private static Limit limit(String name, JsonNode node, String path) {
        List<Policy> policies = new ArrayList<>();
        if (node.isArray()) {
            if (node.isEmpty()) {
                throw new InvalidConfigurationException(path, "must list at least one policy, was []");
            }
            for (int i = 0; i < node.size(); i++) {
                policies.add(policy(node.get(i), path + "[" + i + "]"));
            }
        } else {
            policies.add(policy(node, path));
        }
        try {
            return new Limit(name, policies);
        } catch (InvalidConfigurationException e) {
            throw new InvalidConfigurationException(path, e.problem());
        }
    }

    private static Policy policy(JsonNode node, String path) {
        requireObject(node, path);
        String algorithm = text(required(node, path, "algorithm"), path + ".algorithm");
        try {
            switch (algorithm) {
                case "token_bucket":
                    rejectUnknown(node, path, Set.of("algorithm", "capacity", "refillTokens", "refillPeriod"));
                    return Policy.tokenBucket(whole(required(node, path, "capacity"), path + ".capacity"),
                            whole(required(node, path, "refillTokens"), path + ".refillTokens"),
                            duration(required(node, path, "refillPeriod"), path + ".refillPeriod"));
                case "fixed_window":
                case "sliding_window_log":
                case "sliding_window_counter":
                    rejectUnknown(node, path, Set.of("algorithm", "limit", "window"));
                    long limit = whole(required(node, path, "limit"), path + ".limit");
                    var window = duration(required(node, path, "window"), path + ".window");
                    return switch (algorithm) {
                        case "fixed_window" -> Policy.fixedWindow(limit, window);
                        case "sliding_window_log" -> Policy.slidingWindowLog(limit, window);
                        default -> Policy.slidingWindowCounter(limit, window);
                    };
                case "gcra":
                    rejectUnknown(node, path, Set.of("algorithm", "rate", "period", "burst"));
                    return Policy.gcra(whole(required(node, path, "rate"), path + ".rate"),
                            duration(required(node, path, "period"), path + ".period"),
                            whole(required(node, path, "burst"), path + ".burst"));
                default:
                    throw new InvalidConfigurationException(path + ".algorithm", "must be one of token_bucket, fixed_window, "
                            + "sliding_window_log, sliding_window_counter, gcra; was \"" + algorithm + "\"");
            }
        } catch (InvalidConfigurationException e) {
            throw e.path().startsWith(path) ? e : e.under(path);
        }
    }

    /** A policy's duration, refused here when out of range so that the error quotes it as written ("0s", not PT0S). */
    private static java.time.Duration duration(JsonNode node, String path) {
        String text = text(node, path);
        java.time.Duration d = DurationFormat.parse(text, path);
        if (d.isZero() || d.isNegative() || d.compareTo(Durations.MAX) > 0) {
            throw new InvalidConfigurationException(path, "must be more than 0 and at most " + DurationFormat.format(Durations.MAX)
                    + ", was \"" + text + "\"");
        }
        return d;
    }

    private static long whole(JsonNode node, String path) {
        if (node.isIntegralNumber() && !node.canConvertToLong()) {
            // A whole number, only too large for any setting: not "not a whole number".
            throw new InvalidConfigurationException(path, (node.bigIntegerValue().signum() > 0 ? "is too large (at most "
                    + Long.MAX_VALUE + ")" : "is out of range") + ", was " + node);
        }
        if (!node.isIntegralNumber()) {
            throw new InvalidConfigurationException(path, "must be a whole number, was " + node);
        }
        return node.asLong();
    }

    private static boolean bool(JsonNode node, String path) {
        if (!node.isBoolean()) {
            throw new InvalidConfigurationException(path, "must be true or false, was " + node);
        }
        return node.asBoolean();
    }

    private static String text(JsonNode node, String path) {
        if (!node.isTextual()) {
            throw new InvalidConfigurationException(path, "must be a string, was " + node);
        }
        return node.asText();
    }

    private static JsonNode required(JsonNode node, String path, String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            throw new InvalidConfigurationException(path.isEmpty() ? field : path + "." + field, "is required");
        }
        return value;
    }

    private static void requireObject(JsonNode node, String path) {
        if (!node.isObject()) {
            throw new InvalidConfigurationException(path, "must be a JSON object, was " + node);
        }
    }

    private static void requireArray(JsonNode node, String path) {
        if (!node.isArray()) {
            throw new InvalidConfigurationException(path, "must be a JSON array, was " + node);
        }
    }

    private static void rejectUnknown(JsonNode node, String path, Set<String> known) {
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String field = it.next();
            if (!known.contains(field)) {
                throw new InvalidConfigurationException(path.isEmpty() ? field : path + "." + field,
                        "is not a known field (known: " + String.join(", ", known.stream().sorted().toList()) + ")");
            }
        }
    }
}
