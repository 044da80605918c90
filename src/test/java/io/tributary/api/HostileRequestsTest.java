package io.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.tributary.testing.Api;
import io.tributary.testing.StreamRequests;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 12 item 7: seeded random hostile requests against every endpoint — random, huge and deeply nested JSON,
 * wrong types, unicode, NUL, {@code ..}, {@code /}, percent-encoded names, SQL text, multi-megabyte schemas with very
 * many columns. Never a 500, never a hang (every answer within {@link #ANSWER_WITHIN}), every error in the SPEC 2
 * shape without a library class name, and no partial change: every stream, table, connection and Delta log that
 * exists afterwards belongs to a request that answered 200.
 *
 * <p>{@code -Dfuzz.requests=N} (default 10,000), {@code -Dfuzz.clients=C} (default 4 concurrent clients, each with
 * its own generator seeded from {@code -Dfuzz.seed=S}). Plain HTTP to the server's port, so the Lambda build (API
 * Gateway events) skips it.
 */
@Tag("quarkus")
@Tag("server-only")
@QuarkusTest
class HostileRequestsTest {
    static final int REQUESTS = Integer.getInteger("fuzz.requests", 10_000);
    static final long SEED = Long.getLong("fuzz.seed", 12L);
    // A bound for a hang, not a latency goal: a 60,000-field .proto takes the parser several seconds on a loaded 2-core box.
    static final Duration ANSWER_WITHIN = Duration.ofSeconds(30);
    static final ObjectMapper MAPPER = new ObjectMapper();
    static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    static final Pattern CLASS_NAME = Pattern.compile("(com\\.fasterxml|tools\\.jackson|org\\.apache|java\\.lang"
            + "|java\\.io|io\\.vertx|io\\.quarkus|org\\.hibernate|io\\.tributary|Exception\\b|\\$\\w+\\.java)");
    static final Set<Integer> ALLOWED = Set.of(200, 400, 401, 403, 404, 405, 409, 413, 415);

    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;
    @ConfigProperty(name = "tributary.warehouse")
    String warehouse;
    @ConfigProperty(name = "quarkus.datasource.jdbc.url")
    String jdbcUrl;

    /** One generator per client thread, seeded from the run's seed and the thread's number. */
    final ThreadLocal<Random> randoms = new ThreadLocal<>();
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    static final int CLIENTS = Integer.getInteger("fuzz.clients", 4);
    final Map<Integer, Integer> statuses = new java.util.concurrent.ConcurrentSkipListMap<>();
    /** Every broken promise of the run, reported together at the end. */
    final List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
    final Map<String, Long> millisByKind = new java.util.concurrent.ConcurrentSkipListMap<>();
    /** Names the server accepted (200), lower-cased as it stores them. */
    final Set<String> createdStreams = java.util.concurrent.ConcurrentHashMap.newKeySet();
    final Set<String> createdTables = java.util.concurrent.ConcurrentHashMap.newKeySet();
    final Set<String> createdConnections = java.util.concurrent.ConcurrentHashMap.newKeySet();
    String connection;
    String scope;

    record Request(String method, String path, String token, String contentType, byte[] body) {}

    @Test
    void tenThousandHostileRequestsNeverAnswer500NorHangNorChangeAnythingHalfway() throws Exception {
        connection = Api.unique("fuzzconn");
        scope = Api.unique("fuzzscope");
        send(new Request("POST", "/api/2.0/connections", Api.ALICE, "application/json", utf8("{\"name\": \""
                + connection + "\", \"connection_type\": \"KAFKA\", \"options\": {\"bootstrap_servers\": \""
                + bootstrap + "\"}}")), 200);
        send(new Request("POST", "/api/2.0/secrets/scopes/create", Api.ALICE, "application/json",
                utf8("{\"scope\": \"" + scope + "\"}")), 200);
        Set<String> streamsBefore = rows("SELECT full_name FROM streams");
        Set<String> tablesBefore = rows("SELECT full_name FROM registered_tables");
        Set<String> connectionsBefore = rows("SELECT name FROM connections");
        Set<String> logsBefore = deltaLogs();

        long started = System.nanoTime();
        java.util.concurrent.ExecutorService clients = java.util.concurrent.Executors.newFixedThreadPool(CLIENTS);
        List<java.util.concurrent.Future<?>> running = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            int client = c;
            running.add(clients.submit(() -> {
                randoms.set(new Random(SEED * 31 + client));
                for (int i = client; i < REQUESTS; i += CLIENTS) {
                    Request r = next(i);
                    try {
                        send(r, -1);
                    } catch (AssertionError | Exception e) {
                        if (failures.size() < 30) {
                            failures.add(e.getMessage());
                        }
                    }
                }
                return null;
            }));
        }
        for (java.util.concurrent.Future<?> f : running) {
            f.get();
        }
        clients.shutdown();
        long seconds = (System.nanoTime() - started) / 1_000_000_000L;
        System.out.println("HostileRequestsTest: " + REQUESTS + " requests (seed " + SEED + ") in " + seconds
                + " s; statuses " + statuses);
        millisByKind.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(12)
                .forEach(e -> System.out.println("  " + e.getValue() + " ms  " + e.getKey()));

        assertThat(failures).as("%s of %s requests broke a promise", failures.size(), REQUESTS).isEmpty();
        assertThat(statuses).doesNotContainKey(500);
        Set<String> streamsAfter = rows("SELECT full_name FROM streams");
        streamsAfter.removeAll(streamsBefore);
        assertThat(createdStreams).containsAll(streamsAfter);
        Set<String> tablesAfter = rows("SELECT full_name FROM registered_tables");
        tablesAfter.removeAll(tablesBefore);
        assertThat(createdTables).containsAll(tablesAfter);
        Set<String> connectionsAfter = rows("SELECT name FROM connections");
        connectionsAfter.removeAll(connectionsBefore);
        assertThat(createdConnections).containsAll(connectionsAfter);
        // A rejected create leaves no Delta log behind (every new one is an ingestion table of a created stream).
        Set<String> logsAfter = deltaLogs();
        logsAfter.removeAll(logsBefore);
        Set<String> createdLocations = new HashSet<>();
        for (String t : rows("SELECT storage_location FROM registered_tables")) {
            createdLocations.add(Path.of(t.replaceFirst("^file:", "")).normalize().toString());
        }
        assertThat(createdLocations).containsAll(logsAfter);
    }

    // ---- requests -------------------------------------------------------------------------------------------------

    private Random random() {
        Random r = randoms.get();
        if (r == null) {
            randoms.set(r = new Random(SEED));
        }
        return r;
    }

    private Request next(int i) {
        int kind = random().nextInt(100);
        if (i % 1000 == 1) {
            return oversizedBody();
        }
        if (i % 1000 == 3) {
            return new Request("POST", "/api/2.0/feature-engineering/streams", Api.ALICE, "application/json",
                    utf8(streamBody(manyColumns()).toString()));
        }
        if (kind < 45) {
            return mutated();
        }
        if (kind < 55) {
            return new Request(randomMethod(), randomPath(), Api.ALICE, "application/json", utf8(randomJson(0)
                    .toString()));
        }
        if (kind < 62) {
            return new Request("POST", randomPostPath(), Api.ALICE, "application/json", deepJson());
        }
        if (kind < 72) {
            return hostileName();
        }
        if (kind < 80) {
            return new Request("POST", randomPostPath(), Api.ALICE, "application/json", randomBytes());
        }
        if (kind < 85) {
            return new Request("POST", randomPostPath(), random().nextBoolean() ? null : "garbage-token",
                    "application/json", utf8("{}"));
        }
        if (kind < 90) {
            return new Request("POST", randomPostPath(), Api.ALICE, random().nextBoolean() ? "text/plain"
                    : "application/xml", utf8("<a>" + hostileString() + "</a>"));
        }
        if (kind < 95) {
            return listWithHostileQuery();
        }
        return new Request("POST", "/api/2.0/feature-engineering/streams", Api.ALICE, "application/json",
                utf8(streamBody(hostileSchema()).toString()));
    }

    private static final List<String> POSTS = List.of("/api/2.0/secrets/scopes/create", "/api/2.0/secrets/put",
            "/api/2.0/secrets/delete", "/api/2.0/secrets/acls/put", "/api/2.0/connections",
            "/api/2.0/feature-engineering/streams", "/api/2.1/unity-catalog/tables");

    private String randomPostPath() {
        return POSTS.get(random().nextInt(POSTS.size()));
    }

    private String randomMethod() {
        return List.of("GET", "POST", "DELETE", "PATCH", "PUT").get(random().nextInt(5));
    }

    private String randomPath() {
        List<String> paths = new ArrayList<>(POSTS);
        paths.addAll(List.of("/api/2.0/connections/" + connection, "/api/2.0/feature-engineering/streams/a.b.c",
                "/api/2.1/unity-catalog/tables/a.b.c", "/api/2.1/unity-catalog/permissions/table/a.b.c",
                "/api/2.1/unity-catalog/permissions/connection/" + connection, "/api/2.0/secrets/list?scope=" + scope));
        return paths.get(random().nextInt(paths.size()));
    }

    /** A valid body for a random endpoint with one node replaced, removed or added. */
    private Request mutated() {
        int which = random().nextInt(8);
        String unique = Long.toString(random().nextLong() & Long.MAX_VALUE, 36);
        ObjectNode body;
        String path;
        String method = "POST";
        switch (which) {
            case 0 -> {
                path = "/api/2.0/secrets/scopes/create";
                body = obj("scope", "s" + unique);
            }
            case 1 -> {
                path = "/api/2.0/secrets/put";
                body = obj("scope", scope).put("key", "k" + unique).put("string_value", "v");
            }
            case 2 -> {
                path = "/api/2.0/secrets/acls/put";
                body = obj("scope", scope).put("principal", "bob").put("permission", "READ");
            }
            case 3 -> {
                path = "/api/2.0/connections";
                body = obj("name", "c" + unique).put("connection_type", "KAFKA");
                body.putObject("options").put("bootstrap_servers", bootstrap);
            }
            case 4 -> {
                path = "/api/2.1/unity-catalog/tables";
                body = obj("name", "fuzz.t" + unique + ".x").put("storage_location", warehouse + "/fuzz/" + unique);
            }
            case 5 -> {
                method = "PATCH";
                path = "/api/2.1/unity-catalog/permissions/connection/" + connection;
                body = (ObjectNode) StreamRequests.json("{\"changes\": [{\"principal\": \"bob\", \"add\": "
                        + "[\"USE_CONNECTION\"], \"remove\": []}]}");
            }
            default -> {
                path = "/api/2.0/feature-engineering/streams";
                body = StreamRequests.valid("fuzz.s" + unique + ".x", connection, "fuzz-topic");
            }
        }
        mutate(body);
        return new Request(method, path, Api.ALICE, "application/json", utf8(body.toString()));
    }

    private void mutate(ObjectNode root) {
        List<ObjectNode> parents = new ArrayList<>();
        collectObjects(root, parents);
        ObjectNode parent = parents.get(random().nextInt(parents.size()));
        List<String> fields = new ArrayList<>();
        parent.fieldNames().forEachRemaining(fields::add);
        int action = random().nextInt(10);
        if (fields.isEmpty() || action == 0) {
            parent.set(hostileString(), hostileValue());
        } else if (action == 1) {
            parent.remove(fields.get(random().nextInt(fields.size())));
        } else {
            parent.set(fields.get(random().nextInt(fields.size())), hostileValue());
        }
    }

    private static void collectObjects(JsonNode node, List<ObjectNode> into) {
        if (node instanceof ObjectNode o) {
            into.add(o);
        }
        for (Iterator<JsonNode> it = node.elements(); it.hasNext(); ) {
            collectObjects(it.next(), into);
        }
    }

    private JsonNode hostileValue() {
        return switch (random().nextInt(9)) {
            case 0 -> NODES.numberNode(random().nextLong());
            case 1 -> NODES.numberNode(random().nextBoolean() ? Double.MAX_VALUE : -1e308);
            case 2 -> NODES.booleanNode(random().nextBoolean());
            case 3 -> NODES.nullNode();
            case 4 -> randomJson(0);
            case 5 -> NODES.arrayNode().add(hostileString());
            case 6 -> NODES.textNode("x".repeat(1 + random().nextInt(100_000)));
            default -> NODES.textNode(hostileString());
        };
    }

    private static final List<String> HOSTILE = List.of("..", "../../etc/passwd", "a/../../b", "a.b/../c.d",
            "%2e%2e", "%2e%2e%2f%2e%2e", "%2F", "a%00b", "\u0000", "a\u0000b", "'; DROP TABLE streams; --",
            "\" OR 1=1 --", "main.fraud.tx'--", "Robert'); DELETE FROM secrets;--", "ünïcødé.名前.テーブル",
            "\uD83D\uDE00.\uD83D\uDE00.\uD83D\uDE00", "\uFEFF", "\u202Emain.x.y", "a.b.c\n", " a.b.c ", "a..b", ".",
            "/", "\\", "s3://other-bucket/x", "file:/etc", "file:///tmp/../etc", "${jndi:ldap://127.0.0.1/x}",
            "%s%s%s%n", "{}", "[]", "null", "a.b.c.d.e", "-a.b.c", "A.B.C", "x".repeat(300));

    private String hostileString() {
        if (random().nextInt(4) == 0) {
            StringBuilder sb = new StringBuilder();
            int n = 1 + random().nextInt(40);
            for (int i = 0; i < n; i++) {
                int cp = random().nextInt(4) == 0 ? random().nextInt(0x20) : random().nextInt(0x2FFFF);
                if (Character.isValidCodePoint(cp) && !(cp >= 0xD800 && cp <= 0xDFFF)) {
                    sb.appendCodePoint(cp);
                }
            }
            return sb.toString();
        }
        return HOSTILE.get(random().nextInt(HOSTILE.size()));
    }

    private JsonNode randomJson(int depth) {
        int pick = depth > 4 ? random().nextInt(5) : random().nextInt(7);
        return switch (pick) {
            case 0 -> NODES.textNode(hostileString());
            case 1 -> NODES.numberNode(random().nextInt());
            case 2 -> NODES.booleanNode(random().nextBoolean());
            case 3 -> NODES.nullNode();
            case 4 -> NODES.numberNode(random().nextDouble());
            case 5 -> {
                ArrayNode a = NODES.arrayNode();
                for (int i = random().nextInt(4); i > 0; i--) {
                    a.add(randomJson(depth + 1));
                }
                yield a;
            }
            default -> {
                ObjectNode o = NODES.objectNode();
                List<String> keys = List.of("name", "scope", "key", "string_value", "options", "changes",
                        "schema_config", "storage_location", "connection_type", "principal");
                for (int i = random().nextInt(4); i > 0; i--) {
                    o.set(random().nextBoolean() ? keys.get(random().nextInt(keys.size())) : hostileString(),
                            randomJson(depth + 1));
                }
                yield o;
            }
        };
    }

    private byte[] deepJson() {
        int depth = 1_000 + random().nextInt(50_000);
        String open = random().nextBoolean() ? "[" : "{\"a\":";
        StringBuilder sb = new StringBuilder(open.repeat(depth));
        if (random().nextBoolean()) {
            sb.append("1").append((open.equals("[") ? "]" : "}").repeat(depth));
        }
        return utf8(sb.toString());
    }

    private byte[] randomBytes() {
        byte[] b = new byte[random().nextInt(2_000)];
        random().nextBytes(b);
        return b;
    }

    private Request oversizedBody() {
        // Over the 4 MB limit: refused before it is read.
        String big = "{\"scope\": \"" + "x".repeat(5 * 1024 * 1024) + "\"}";
        return new Request("POST", "/api/2.0/secrets/scopes/create", Api.ALICE, "application/json", utf8(big));
    }

    /** Names in URL paths: raw and percent-encoded {@code ..}, {@code /}, NUL, SQL, unicode. */
    private Request hostileName() {
        String name = hostileString();
        String segment = random().nextBoolean() ? URLEncoder.encode(name, StandardCharsets.UTF_8).replace("+", "%20")
                : rawSegment(name);
        List<String> prefixes = List.of("/api/2.0/feature-engineering/streams/", "/api/2.0/connections/",
                "/api/2.1/unity-catalog/tables/", "/api/2.1/unity-catalog/permissions/table/",
                "/api/2.1/unity-catalog/permissions/connection/", "/api/2.1/unity-catalog/permissions/",
                "/api/2.0/feature-engineering/streams/main.x.");
        String path = prefixes.get(random().nextInt(prefixes.size())) + segment;
        String method = List.of("GET", "DELETE", "PATCH").get(random().nextInt(3));
        byte[] body = method.equals("PATCH") ? utf8("{\"changes\": [{\"principal\": \"" + jsonEscape(name)
                + "\", \"add\": [\"SELECT\"]}]}") : null;
        return new Request(method, path, Api.ALICE, "application/json", body);
    }

    /** As much of the name as a URI may carry unencoded; the rest percent-encoded. */
    private static String rawSegment(String name) {
        StringBuilder sb = new StringBuilder();
        for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if (c < 0x80 && (Character.isLetterOrDigit(c) || "-._~/!$&'()*+,;=:@".indexOf(c) >= 0)) {
                sb.append(c);
            } else {
                sb.append('%').append(String.format("%02X", b & 0xff));
            }
        }
        return sb.toString();
    }

    private Request listWithHostileQuery() {
        String[] params = {"catalog_name", "schema_name", "max_results", "page_token", "include_schemas"};
        StringBuilder q = new StringBuilder("/api/2.0/feature-engineering/streams?");
        for (String p : params) {
            if (random().nextBoolean()) {
                q.append(p).append('=').append(URLEncoder.encode(random().nextInt(3) == 0 ? "main"
                        : random().nextInt(3) == 0 ? Long.toString(random().nextLong()) : hostileString(),
                        StandardCharsets.UTF_8)).append('&');
            }
        }
        if (random().nextInt(4) == 0) {
            return new Request("GET", "/api/2.0/secrets/list?scope=" + URLEncoder.encode(hostileString(),
                    StandardCharsets.UTF_8), Api.ALICE, null, null);
        }
        return new Request("GET", q.toString(), Api.ALICE, null, null);
    }

    private ObjectNode streamBody(ObjectNode payloadSchema) {
        ObjectNode body = StreamRequests.valid("fuzz.big" + Long.toString(random().nextLong() & Long.MAX_VALUE, 36)
                + ".x", connection, "fuzz-topic");
        ((ObjectNode) body.get("schema_config").get("direct_schemas")).set("payload_schema", payloadSchema);
        return body;
    }

    /** A JSON Schema, Avro or Protobuf schema of 12,000-60,000 fields: over the column limit. */
    private ObjectNode manyColumns() {
        int n = 12_000 + random().nextInt(48_000);
        StringBuilder sb = new StringBuilder();
        ObjectNode side = NODES.objectNode();
        switch (random().nextInt(3)) {
            case 0 -> {
                sb.append("{\"type\":\"object\",\"properties\":{");
                for (int i = 0; i < n; i++) {
                    sb.append(i == 0 ? "" : ",").append("\"f").append(i).append("\":{\"type\":\"string\"}");
                }
                side.put("json_schema", sb.append("}}").toString());
            }
            case 1 -> {
                sb.append("{\"type\":\"record\",\"name\":\"R\",\"fields\":[");
                for (int i = 0; i < n; i++) {
                    sb.append(i == 0 ? "" : ",").append("{\"name\":\"f").append(i).append("\",\"type\":\"int\"}");
                }
                side.put("avro_schema", sb.append("]}").toString());
            }
            default -> {
                sb.append("syntax = \"proto3\"; package fuzz; message M {");
                for (int i = 0; i < n; i++) {
                    sb.append(" int32 f").append(i).append(" = ").append(i + 1).append(';');
                }
                side.putObject("proto_schema").put("schema_text", sb.append(" }").toString())
                        .put("message_name", "fuzz.M");
            }
        }
        return side;
    }

    /** Broken, deep or exploding schema texts. */
    private ObjectNode hostileSchema() {
        ObjectNode side = NODES.objectNode();
        switch (random().nextInt(7)) {
            case 0 -> side.put("avro_schema", "{\"type\": \"record\", " + hostileString());
            case 1 -> side.put("json_schema", "{\"type\":\"object\",\"properties\":{\"a\":".repeat(2_000) + "{}");
            case 2 -> {
                // A $ref bomb: 20 definitions of 10 properties each pointing at the next one (10^20 columns).
                StringBuilder defs = new StringBuilder("{\"$ref\":\"#/$defs/d0\",\"$defs\":{");
                for (int d = 0; d < 20; d++) {
                    defs.append(d == 0 ? "" : ",").append("\"d").append(d).append("\":{\"type\":\"object\","
                            + "\"properties\":{");
                    for (int p = 0; p < 10; p++) {
                        defs.append(p == 0 ? "" : ",").append("\"p").append(p).append("\":")
                                .append(d == 19 ? "{\"type\":\"string\"}" : "{\"$ref\":\"#/$defs/d" + (d + 1) + "\"}");
                    }
                    defs.append("}}");
                }
                side.put("json_schema", defs.append("}}").toString());
            }
            case 3 -> side.putObject("proto_schema").put("schema_text", "syntax = \"proto3\"; " + hostileString())
                    .put("message_name", hostileString());
            case 4 -> side.put("avro_schema", "[".repeat(5_000));
            case 5 -> {
                // Avro named types reused: 30 records of 2 fields each holding the previous one twice (2^30).
                StringBuilder avro = new StringBuilder("{\"type\":\"record\",\"name\":\"r0\",\"fields\":"
                        + "[{\"name\":\"x\",\"type\":\"int\"}]}");
                for (int i = 1; i < 30; i++) {
                    avro = new StringBuilder("{\"type\":\"record\",\"name\":\"r" + i + "\",\"fields\":[{\"name\":"
                            + "\"a\",\"type\":" + avro + "},{\"name\":\"b\",\"type\":\"r" + (i - 1) + "\"}]}");
                }
                side.put("avro_schema", avro.toString());
            }
            default -> side.put("json_schema", hostileString());
        }
        return side;
    }

    // ---- sending and checking -------------------------------------------------------------------------------------

    private void send(Request r, int expected) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + RestAssured.port + r.path()))
                .timeout(ANSWER_WITHIN);
        if (r.token() != null) {
            b.header("Authorization", "Bearer " + r.token());
        }
        if (r.contentType() != null) {
            b.header("Content-Type", r.contentType());
        }
        b.method(r.method(), r.body() == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofByteArray(r.body()));
        HttpResponse<String> response;
        long t0 = System.nanoTime();
        try {
            response = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            String kind = r.method() + " " + r.path().replaceAll("^((?:/[^/?]*){4}).*", "$1") + " "
                    + response.statusCode();
            long took = (System.nanoTime() - t0) / 1_000_000L;
            millisByKind.merge(kind, took, Long::sum);
            if (took > 1000) {
                System.out.println("slow " + took + " ms " + response.statusCode() + " " + describe(r).substring(0,
                        Math.min(200, describe(r).length())) + " -> " + response.body().substring(0,
                        Math.min(300, response.body().length())));
            }
        } catch (java.net.http.HttpTimeoutException e) {
            throw new AssertionError("no answer within " + ANSWER_WITHIN + ": " + describe(r), e);
        } catch (IOException e) {
            if (r.body() != null && r.body().length > 4 * 1024 * 1024) {
                // The server may close the connection after its 413 while the client still writes the body.
                statuses.merge(413, 1, Integer::sum);
                return;
            }
            throw new AssertionError("the connection failed: " + describe(r), e);
        }
        int status = response.statusCode();
        statuses.merge(status, 1, Integer::sum);
        String body = response.body();
        if (expected > 0 && status != expected) {
            throw new AssertionError(describe(r) + " answered " + status + ": " + body);
        }
        assertThat(ALLOWED).as("%s answered %s: %s", describe(r), status, body).contains(status);
        if (status != 200) {
            JsonNode error = MAPPER.readTree(body);
            assertThat(error.path("error_code").isTextual()).as("%s: %s", describe(r), body).isTrue();
            assertThat(error.path("message").asText()).as(describe(r)).isNotBlank().doesNotContainPattern(CLASS_NAME);
            return;
        }
        remember(r, MAPPER.readTree(body));
    }

    private void remember(Request r, JsonNode answer) {
        if (!"POST".equals(r.method())) {
            return;
        }
        switch (r.path()) {
            case "/api/2.0/feature-engineering/streams" -> {
                createdStreams.add(answer.path("name").asText());
                createdTables.add(answer.path("ingestion_config").path("ingestion_destination")
                        .path("delta_table_name").asText());
            }
            case "/api/2.1/unity-catalog/tables" -> createdTables.add(answer.path("name").asText());
            case "/api/2.0/connections" -> createdConnections.add(answer.path("name").asText());
            default -> { }
        }
    }

    private static String describe(Request r) {
        String body = r.body() == null ? "" : new String(r.body(), StandardCharsets.UTF_8);
        return r.method() + " " + r.path() + " " + (body.length() > 300 ? body.substring(0, 300) + "..." : body);
    }

    private Set<String> rows(String sql) throws Exception {
        Set<String> out = new HashSet<>();
        try (Connection c = DriverManager.getConnection(jdbcUrl, "postgres", "postgres");
                Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    private Set<String> deltaLogs() throws IOException {
        Set<String> out = new HashSet<>();
        try (Stream<Path> walk = Files.walk(Path.of(warehouse), 5)) {
            walk.filter(p -> p.getFileName().toString().equals("_delta_log"))
                    .forEach(p -> out.add(p.getParent().toAbsolutePath().normalize().toString()));
        }
        return out;
    }

    private static ObjectNode obj(String field, String value) {
        return NODES.objectNode().put(field, value);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String jsonEscape(String s) {
        return NODES.textNode(s).toString().replaceAll("^\"|\"$", "");
    }
}
