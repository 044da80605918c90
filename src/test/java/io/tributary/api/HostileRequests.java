package io.tributary.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tributary.testing.Api;
import io.tributary.testing.StreamRequests;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;

/**
 * The request generator of {@link HostileRequestsTest}: valid bodies with one node mutated, random JSON to random
 * endpoints, deep JSON, hostile names in URL paths and queries, random bytes, bad tokens and content types, and
 * oversized bodies and schemas. One instance per client thread, seeded, so a seed replays a run.
 */
final class HostileRequests {
    record Request(String method, String path, String token, String contentType, byte[] body) {}

    private final Random random;
    private final HostileValues values;
    private final HostileSchemas schemas;
    private final String connection;
    private final String scope;
    private final String bootstrap;
    private final String warehouse;

    HostileRequests(Random random, String connection, String scope, String bootstrap, String warehouse) {
        this.random = random;
        this.values = new HostileValues(random);
        this.schemas = new HostileSchemas(random, values);
        this.connection = connection;
        this.scope = scope;
        this.bootstrap = bootstrap;
        this.warehouse = warehouse;
    }

    Request next(int i) {
        int kind = random.nextInt(100);
        if (i % 1000 == 1) {
            return oversizedBody();
        }
        if (i % 1000 == 3) {
            return new Request("POST", "/api/2.0/feature-engineering/streams", Api.ALICE, "application/json",
                    utf8(streamBody(schemas.manyColumns()).toString()));
        }
        if (kind < 45) {
            return mutated();
        }
        if (kind < 55) {
            return new Request(randomMethod(), randomPath(), Api.ALICE, "application/json", utf8(values.randomJson(0)
                    .toString()));
        }
        if (kind < 62) {
            return new Request("POST", randomPostPath(), Api.ALICE, "application/json", values.deepJson());
        }
        if (kind < 72) {
            return hostileName();
        }
        if (kind < 80) {
            return new Request("POST", randomPostPath(), Api.ALICE, "application/json", values.randomBytes());
        }
        if (kind < 85) {
            return new Request("POST", randomPostPath(), random.nextBoolean() ? null : "garbage-token",
                    "application/json", utf8("{}"));
        }
        if (kind < 90) {
            return new Request("POST", randomPostPath(), Api.ALICE, random.nextBoolean() ? "text/plain"
                    : "application/xml", utf8("<a>" + values.hostileString() + "</a>"));
        }
        if (kind < 95) {
            return listWithHostileQuery();
        }
        return new Request("POST", "/api/2.0/feature-engineering/streams", Api.ALICE, "application/json",
                utf8(streamBody(schemas.hostileSchema()).toString()));
    }

    private static final List<String> POSTS = List.of("/api/2.0/secrets/scopes/create", "/api/2.0/secrets/put",
            "/api/2.0/secrets/delete", "/api/2.0/secrets/acls/put", "/api/2.0/connections",
            "/api/2.0/feature-engineering/streams", "/api/2.1/unity-catalog/tables");

    private String randomPostPath() {
        return POSTS.get(random.nextInt(POSTS.size()));
    }

    private String randomMethod() {
        return List.of("GET", "POST", "DELETE", "PATCH", "PUT").get(random.nextInt(5));
    }

    private String randomPath() {
        List<String> paths = new ArrayList<>(POSTS);
        paths.addAll(List.of("/api/2.0/connections/" + connection, "/api/2.0/feature-engineering/streams/a.b.c",
                "/api/2.1/unity-catalog/tables/a.b.c", "/api/2.1/unity-catalog/permissions/table/a.b.c",
                "/api/2.1/unity-catalog/permissions/connection/" + connection, "/api/2.0/secrets/list?scope=" + scope));
        return paths.get(random.nextInt(paths.size()));
    }

    /** A valid body for a random endpoint with one node replaced, removed or added. */
    private Request mutated() {
        int which = random.nextInt(8);
        String unique = Long.toString(random.nextLong() & Long.MAX_VALUE, 36);
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
        ObjectNode parent = parents.get(random.nextInt(parents.size()));
        List<String> fields = new ArrayList<>();
        parent.fieldNames().forEachRemaining(fields::add);
        int action = random.nextInt(10);
        if (fields.isEmpty() || action == 0) {
            parent.set(values.hostileString(), values.hostileValue());
        } else if (action == 1) {
            parent.remove(fields.get(random.nextInt(fields.size())));
        } else {
            parent.set(fields.get(random.nextInt(fields.size())), values.hostileValue());
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

    private Request oversizedBody() {
        // Over the 4 MB limit: refused before it is read.
        String big = "{\"scope\": \"" + "x".repeat(5 * 1024 * 1024) + "\"}";
        return new Request("POST", "/api/2.0/secrets/scopes/create", Api.ALICE, "application/json", utf8(big));
    }

    /** Names in URL paths: raw and percent-encoded {@code ..}, {@code /}, NUL, SQL, unicode. */
    private Request hostileName() {
        String name = values.hostileString();
        String segment = random.nextBoolean() ? URLEncoder.encode(name, StandardCharsets.UTF_8).replace("+", "%20")
                : rawSegment(name);
        List<String> prefixes = List.of("/api/2.0/feature-engineering/streams/", "/api/2.0/connections/",
                "/api/2.1/unity-catalog/tables/", "/api/2.1/unity-catalog/permissions/table/",
                "/api/2.1/unity-catalog/permissions/connection/", "/api/2.1/unity-catalog/permissions/",
                "/api/2.0/feature-engineering/streams/main.x.");
        String path = prefixes.get(random.nextInt(prefixes.size())) + segment;
        String method = List.of("GET", "DELETE", "PATCH").get(random.nextInt(3));
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
            if (random.nextBoolean()) {
                q.append(p).append('=').append(URLEncoder.encode(random.nextInt(3) == 0 ? "main"
                        : random.nextInt(3) == 0 ? Long.toString(random.nextLong()) : values.hostileString(),
                        StandardCharsets.UTF_8)).append('&');
            }
        }
        if (random.nextInt(4) == 0) {
            return new Request("GET", "/api/2.0/secrets/list?scope=" + URLEncoder.encode(values.hostileString(),
                    StandardCharsets.UTF_8), Api.ALICE, null, null);
        }
        return new Request("GET", q.toString(), Api.ALICE, null, null);
    }

    private ObjectNode streamBody(ObjectNode payloadSchema) {
        ObjectNode body = StreamRequests.valid("fuzz.big" + Long.toString(random.nextLong() & Long.MAX_VALUE, 36)
                + ".x", connection, "fuzz-topic");
        ((ObjectNode) body.get("schema_config").get("direct_schemas")).set("payload_schema", payloadSchema);
        return body;
    }

    private static ObjectNode obj(String field, String value) {
        return HostileValues.NODES.objectNode().put(field, value);
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String jsonEscape(String s) {
        return HostileValues.NODES.textNode(s).toString().replaceAll("^\"|\"$", "");
    }
}
