package io.tributary.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tributary.retry.Backoff;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A client of the Confluent schema-registry REST API (also served by Apicurio's ccompat API): the latest (or a given)
 * version of a subject, and schemas by id. Schemas by id never change, so they are cached for the life of the
 * process; one client (and cache) is shared by every decoder of the same registry and credentials. Transient failures
 * (I/O, timeouts, 429, 5xx) are retried with backoff. Credentials go only into the Authorization header.
 */
final class RegistryClient {
    /** One registered schema. {@code type} is AVRO, PROTOBUF or JSON (the registry omits it for Avro). */
    record RegisteredSchema(int id, int version, String type, String text, boolean hasReferences) {}

    private static final Map<RegistryAccess, RegistryClient> SHARED = new ConcurrentHashMap<>();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ACCEPT = "application/vnd.schemaregistry.v1+json, application/json";

    private final String baseUrl;
    private final String displayUrl;
    private final String authorization;
    private final HttpClient http;
    private final Duration requestTimeout;
    private final int attempts;
    private final Backoff backoff;
    private final Map<Integer, RegisteredSchema> byId = new ConcurrentHashMap<>();

    RegistryClient(RegistryAccess access, Duration connectTimeout, Duration requestTimeout, int attempts,
                   Duration backoff) {
        String url = Objects.requireNonNull(access.url(), "registry url").trim();
        this.baseUrl = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        this.displayUrl = display(baseUrl);
        this.authorization = access.apiKey() == null || access.apiKey().isEmpty() ? null
                : "Basic " + Base64.getEncoder().encodeToString((access.apiKey() + ":"
                + (access.apiSecret() == null ? "" : access.apiSecret())).getBytes(StandardCharsets.UTF_8));
        this.http = HttpClient.newBuilder().connectTimeout(connectTimeout)
                .followRedirects(HttpClient.Redirect.NEVER).build();
        this.requestTimeout = requestTimeout;
        this.attempts = attempts;
        // Doubling at every attempt, with no ceiling below what the attempts reach.
        this.backoff = Backoff.exponential(backoff, backoff.multipliedBy(1L << Math.min(30, Math.max(0, attempts))));
    }

    static RegistryClient shared(RegistryAccess access) {
        return SHARED.computeIfAbsent(access, a -> new RegistryClient(a, Duration.ofSeconds(5),
                Duration.ofSeconds(10), 3, Duration.ofMillis(200)));
    }

    String displayUrl() {
        return displayUrl;
    }

    /** @param version a version number, or null for the latest */
    RegisteredSchema version(String subject, Integer version) throws SchemaRegistryException {
        String path = "/subjects/" + encode(subject) + "/versions/" + (version == null ? "latest" : version);
        JsonNode body = get(path, "subject `" + subject + "`" + (version == null ? "" : " version " + version));
        RegisteredSchema schema = parse(body, body.path("id").asInt(-1));
        byId.putIfAbsent(schema.id(), schema);
        return schema;
    }

    /** The subject's version numbers, oldest first. */
    java.util.List<Integer> versions(String subject) throws SchemaRegistryException {
        JsonNode body = get("/subjects/" + encode(subject) + "/versions", "subject `" + subject + "`");
        java.util.List<Integer> versions = new java.util.ArrayList<>();
        for (JsonNode v : body) {
            if (v.canConvertToInt()) {
                versions.add(v.asInt());
            }
        }
        java.util.Collections.sort(versions);
        return versions;
    }

    RegisteredSchema byId(int id) throws SchemaRegistryException {
        RegisteredSchema cached = byId.get(id);
        if (cached != null) {
            return cached;
        }
        RegisteredSchema schema = parse(get("/schemas/ids/" + id, "schema id " + id), id);
        byId.putIfAbsent(id, schema);
        return schema;
    }

    private RegisteredSchema parse(JsonNode body, int id) throws SchemaRegistryException {
        JsonNode text = body.get("schema");
        if (id < 0 || text == null || !text.isTextual()) {
            throw new SchemaRegistryException(SchemaRegistryException.Kind.BAD_RESPONSE, "the schema registry at " + displayUrl
                    + " answered without a schema; check that the URL points at a Confluent-compatible registry API");
        }
        String type = body.path("schemaType").asText("AVRO");
        JsonNode refs = body.get("references");
        return new RegisteredSchema(id, body.path("version").asInt(0), type.isEmpty() ? "AVRO" : type,
                text.asText(), refs != null && refs.isArray() && !refs.isEmpty());
    }

    private JsonNode get(String path, String what) throws SchemaRegistryException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path))
                .timeout(requestTimeout).header("Accept", ACCEPT).GET();
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        String lastProblem = "";
        for (int attempt = 1; attempt <= attempts; attempt++) {
            if (attempt > 1) {
                sleep(backoff.delay(attempt - 1));
            }
            HttpResponse<String> response;
            try {
                response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            } catch (IOException e) {
                lastProblem = e.getClass().getSimpleName();
                continue;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SchemaRegistryException(SchemaRegistryException.Kind.UNAVAILABLE, "interrupted while calling the"
                        + " schema registry at " + displayUrl);
            }
            int status = response.statusCode();
            if (status == 200) {
                try {
                    return JSON.readTree(response.body());
                } catch (IOException e) {
                    throw new SchemaRegistryException(SchemaRegistryException.Kind.BAD_RESPONSE, "the schema registry at "
                            + displayUrl + " answered with something that is not JSON for " + what);
                }
            }
            if (status == 404) {
                throw new SchemaRegistryException(SchemaRegistryException.Kind.NOT_FOUND, what + " does not exist in the schema"
                        + " registry at " + displayUrl + registryMessage(response.body()));
            }
            if (status == 401 || status == 403) {
                throw new SchemaRegistryException(SchemaRegistryException.Kind.UNAUTHORIZED, "the schema registry at "
                        + displayUrl + " refused the credentials (HTTP " + status + ") for " + what
                        + "; check the API key and secret");
            }
            if (status != 429 && status < 500) {
                throw new SchemaRegistryException(SchemaRegistryException.Kind.BAD_RESPONSE, "the schema registry at "
                        + displayUrl + " answered HTTP " + status + " for " + what + registryMessage(response.body()));
            }
            lastProblem = "HTTP " + status;
        }
        throw new SchemaRegistryException(SchemaRegistryException.Kind.UNAVAILABLE, "cannot reach the schema registry at "
                + displayUrl + " for " + what + " after " + attempts + " attempts (last: " + lastProblem + ")");
    }

    /** The registry's own error text (about subjects and ids, never credentials), shortened. */
    private static String registryMessage(String body) {
        try {
            JsonNode message = JSON.readTree(body).get("message");
            if (message != null && message.isTextual()) {
                String m = message.asText();
                return " (registry says: " + (m.length() > 200 ? m.substring(0, 200) + "…" : m) + ")";
            }
        } catch (IOException | RuntimeException e) {
            // Not a Confluent error body: nothing to add.
        }
        return "";
    }

    private static void sleep(Duration d) throws SchemaRegistryException {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SchemaRegistryException(SchemaRegistryException.Kind.UNAVAILABLE, "interrupted while retrying");
        }
    }

    private static String encode(String segment) {
        return URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** The URL without user info or query, which may carry credentials. */
    static String display(String url) {
        try {
            URI u = URI.create(url);
            if (u.getHost() == null) {
                return "(the configured URL)";
            }
            return u.getScheme() + "://" + u.getHost() + (u.getPort() >= 0 ? ":" + u.getPort() : "")
                    + (u.getPath() == null ? "" : u.getPath());
        } catch (IllegalArgumentException e) {
            return "(the configured URL)";
        }
    }
}
