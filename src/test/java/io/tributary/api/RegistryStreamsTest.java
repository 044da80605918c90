package io.tributary.api;

import static io.tributary.testing.Api.ALICE;
import static io.tributary.testing.Api.BOB;
import static io.tributary.testing.Api.ROOT;
import static io.tributary.testing.Api.as;
import static io.tributary.testing.Api.unique;
import static io.tributary.testing.StreamRequests.json;
import static io.tributary.testing.StreamRequests.valid;
import static io.tributary.testing.StreamRequests.with;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quarkus.test.junit.QuarkusTest;
import io.tributary.testing.ApicurioRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Streams whose schemas come from a real Confluent-compatible registry (Apicurio; skipped without Java 21+). */
@QuarkusTest
@Tag("quarkus")
class RegistryStreamsTest {
    static final String STREAMS = "/api/2.0/feature-engineering/streams";
    static final String LOCATOR = "schema_config.schema_registry_config.payload_schema_locator";

    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;

    static ApicurioRegistry registry;
    static String connection;
    static String topic;
    static String scope;

    @BeforeEach
    void setUp() throws Exception {
        assumeTrue(ApicurioRegistry.unavailableReason().isEmpty(), () -> ApicurioRegistry.unavailableReason().get());
        if (registry != null) {
            return;
        }
        registry = ApicurioRegistry.start(Files.createTempDirectory("apicurio-"));
        HttpResponse<String> put = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create(registry.url() + "/subjects/orders-value/versions"))
                .header("Content-Type", "application/vnd.schemaregistry.v1+json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"schema\": \"{\\\"type\\\": \\\"record\\\", \\\"name\\\": "
                        + "\\\"Order\\\", \\\"fields\\\": [{\\\"name\\\": \\\"id\\\", \\\"type\\\": \\\"string\\\"}]}\"}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        if (put.statusCode() != 200) {
            throw new IllegalStateException("registering the test subject failed: " + put.body());
        }
        scope = unique("regscope");
        as(ALICE).body("{\"scope\": \"" + scope + "\"}").post("/api/2.0/secrets/scopes/create").then().statusCode(200);
        as(ALICE).body("{\"scope\": \"" + scope + "\", \"key\": \"sr\", \"string_value\": \"registry-secret\"}")
                .post("/api/2.0/secrets/put").then().statusCode(200);
        connection = unique("regconn");
        as(ALICE).body("{\"name\": \"" + connection + "\", \"connection_type\": \"KAFKA\", \"options\": {"
                + "\"bootstrap_servers\": \"" + bootstrap + "\", \"schema_registry_url\": \"" + registry.url() + "\", "
                + "\"schema_registry_api_key\": \"key\", \"schema_registry_api_secret\": {\"scope\": \"" + scope
                + "\", \"key\": \"sr\"}}}").post("/api/2.0/connections").then().statusCode(200);
        topic = unique("orders");
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
    }

    @AfterAll
    static void stopRegistry() {
        if (registry != null) {
            registry.close();
        }
    }

    private static ObjectNode fromRegistry(String name, String subject, String format) {
        ObjectNode body = with(valid(name, connection, topic), "schema_config", json("{\"schema_registry_config\": {"
                + "\"payload_schema_locator\": {\"confluent_schema\": {\"subject\": \"" + subject + "\"}, "
                + "\"format\": \"" + format + "\"}}}"));
        return body;
    }

    @Test
    void aRegisteredSubjectDefinesTheValueColumn() {
        String name = "main." + unique("reg") + ".orders";
        as(ALICE).body(fromRegistry(name, "orders-value", "FORMAT_AVRO").toString()).post(STREAMS).then()
                .statusCode(200)
                .body("schema_config.schema_registry_config.payload_schema_locator.confluent_schema.subject",
                        equalTo("orders-value"))
                .body(org.hamcrest.Matchers.not(containsString("registry-secret")));
        as(ALICE).get("/api/2.1/unity-catalog/tables/" + name + "_ingestion").then().statusCode(200)
                .body("columns.find { it.name == 'value' }.type_text", containsString("id:string"));
        as(ALICE).delete(STREAMS + "/" + name).then().statusCode(200);
    }

    @Test
    void aMissingSubjectOrAWrongFormatIsA400OnTheLocator() {
        as(ALICE).body(fromRegistry("main." + unique("reg") + ".missing", "no-such-subject", "FORMAT_AVRO")
                .toString()).post(STREAMS).then().statusCode(400)
                .body("error_code", equalTo("INVALID_PARAMETER_VALUE")).body("message", startsWith(LOCATOR));
        as(ALICE).body(fromRegistry("main." + unique("reg") + ".format", "orders-value", "FORMAT_PROTOBUF")
                .toString()).post(STREAMS).then().statusCode(400).body("message", startsWith(LOCATOR));
    }

    @Test
    void aConnectionWhoseRegistrySecretWasDeletedIsNamed() {
        String lonelyScope = unique("lonely");
        as(ALICE).body("{\"scope\": \"" + lonelyScope + "\"}").post("/api/2.0/secrets/scopes/create").then()
                .statusCode(200);
        as(ALICE).body("{\"scope\": \"" + lonelyScope + "\", \"key\": \"sr\", \"string_value\": \"x\"}")
                .post("/api/2.0/secrets/put").then().statusCode(200);
        String conn = unique("lonelyconn");
        as(ALICE).body("{\"name\": \"" + conn + "\", \"connection_type\": \"KAFKA\", \"options\": {"
                + "\"bootstrap_servers\": \"" + bootstrap + "\", \"schema_registry_url\": \"" + registry.url()
                + "\", \"schema_registry_api_secret\": {\"scope\": \"" + lonelyScope + "\", \"key\": \"sr\"}}}")
                .post("/api/2.0/connections").then().statusCode(200);
        as(ALICE).body("{\"scope\": \"" + lonelyScope + "\", \"key\": \"sr\"}").post("/api/2.0/secrets/delete")
                .then().statusCode(200);
        ObjectNode body = fromRegistry("main." + unique("reg") + ".lonely", "orders-value", "FORMAT_AVRO");
        with(body, "connection_config.uc_connection_name", conn);
        as(ALICE).body(body.toString()).post(STREAMS).then().statusCode(400)
                .body("message", startsWith("connection_config.uc_connection_name:"));
    }

    @Test
    void anApiSecretRefNeedsReadOnItsScope() {
        as(ALICE).body("{\"changes\": [{\"principal\": \"bob\", \"add\": [\"USE CONNECTION\"]}]}")
                .patch("/api/2.1/unity-catalog/permissions/connection/" + connection).then().statusCode(200);
        ObjectNode body = fromRegistry("main." + unique("reg") + ".bobs", "orders-value", "FORMAT_AVRO");
        with(body, "schema_config.schema_registry_config.api_secret_ref", Map.of("scope", scope, "key", "sr"));
        as(BOB).body(body.toString()).post(STREAMS).then().statusCode(403).body("message", containsString(scope));
        as(ROOT).body(body.toString()).post(STREAMS).then().statusCode(200);
    }
}
