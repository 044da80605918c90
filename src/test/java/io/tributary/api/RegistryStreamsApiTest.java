package io.tributary.api;

import static io.tributary.testing.Api.ALICE;
import static io.tributary.testing.Api.as;
import static io.tributary.testing.Api.unique;
import static io.tributary.testing.StreamRequests.json;
import static io.tributary.testing.StreamRequests.valid;
import static io.tributary.testing.StreamRequests.with;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quarkus.test.junit.QuarkusTest;
import io.tributary.testing.ApicurioRegistry;
import io.tributary.testing.BasicAuthProxy;
import io.tributary.testing.ConfluentWire;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Stream creation with schema_registry_config against a real Apicurio Registry (its Confluent API) behind a basic-auth
 * proxy on 127.0.0.1 (Apicurio without Keycloak checks no credentials; the proxy does, as Confluent's registry would).
 */
@Tag("quarkus")
@QuarkusTest
class RegistryStreamsApiTest {
    static final String STREAMS = "/api/2.0/feature-engineering/streams";
    static final String REG = "schema_config.schema_registry_config";
    static final String API_KEY = "sr-key";
    static final String API_SECRET = "sr-secret-Zq81x";
    static final String WRONG_SECRET = "wrong-secret-Kp07y";
    static final String AVRO = """
            {"type":"record","name":"Tx","namespace":"ex","fields":[
              {"name":"id","type":"long"},{"name":"amount","type":["null","double"],"default":null}]}""";
    static final String AVRO_V2 = """
            {"type":"record","name":"Tx","namespace":"ex","fields":[
              {"name":"id","type":"long"},{"name":"amount","type":["null","double"],"default":null},
              {"name":"note","type":["null","string"],"default":null}]}""";
    static final String PROTO = "syntax = \"proto3\";\npackage ex;\nmessage Key {\n  string id = 1;\n}\n";

    static Path dir;
    static ApicurioRegistry registry;
    static BasicAuthProxy proxy;

    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;
    @jakarta.inject.Inject
    io.tributary.delta.Tables tables;

    static String scope;
    static String connection;
    static String downConnection;
    static String topic;

    @BeforeAll
    static void startRegistry() throws Exception {
        assumeTrue(ApicurioRegistry.unavailableReason().isEmpty(), () -> ApicurioRegistry.unavailableReason().get());
        dir = Files.createTempDirectory("registry-api");
        registry = ApicurioRegistry.start(dir);
        proxy = new BasicAuthProxy(registry.url(), API_KEY, API_SECRET);
        ConfluentWire.register(registry.url(), "rtx-value", "AVRO", AVRO);
        ConfluentWire.register(registry.url(), "rtx-value", "AVRO", AVRO_V2);
        ConfluentWire.register(registry.url(), "ex.Tx", "AVRO", AVRO);
        ConfluentWire.register(registry.url(), "rtx-ex.Key", "PROTOBUF", PROTO);
        ConfluentWire.register(registry.url(), "json-value", "JSON", "{\"$schema\": \"http://json-schema.org/draft-07/schema#\","
                + " \"type\": \"object\", \"properties\": {\"a\": {\"type\": \"string\"}}}");
    }

    @AfterAll
    static void stopRegistry() {
        if (proxy != null) {
            proxy.close();
        }
        if (registry != null) {
            registry.close();
        }
    }

    @BeforeEach
    void setUp() throws Exception {
        if (connection != null) {
            return;
        }
        scope = unique("sr");
        as(ALICE).body("{\"scope\": \"" + scope + "\"}").post("/api/2.0/secrets/scopes/create").then().statusCode(200);
        for (String[] kv : List.of(new String[] {"right", API_SECRET}, new String[] {"wrong", WRONG_SECRET})) {
            as(ALICE).body("{\"scope\": \"" + scope + "\", \"key\": \"" + kv[0] + "\", \"string_value\": \"" + kv[1]
                    + "\"}").post("/api/2.0/secrets/put").then().statusCode(200);
        }
        connection = connection(proxy.url() + "/apis/ccompat/v7");
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        downConnection = connection("http://127.0.0.1:" + closed + "/apis/ccompat/v7");
        topic = unique("rtx");
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
    }

    private String connection(String url) {
        String name = unique("kafka-sr");
        as(ALICE).body("{\"name\": \"" + name + "\", \"connection_type\": \"KAFKA\", \"options\": {"
                + "\"bootstrap_servers\": \"" + bootstrap + "\", \"schema_registry_url\": \"" + url + "\", "
                + "\"schema_registry_api_key\": \"" + API_KEY + "\", \"schema_registry_api_secret\": "
                + "{\"scope\": \"" + scope + "\", \"key\": \"right\"}}}")
                .post("/api/2.0/connections").then().statusCode(200);
        return name;
    }

    private ObjectNode request(String conn, String secretKey, String payloadLocator, String keyLocator) {
        String name = "main.sr." + unique("s").replace('-', '_');
        ObjectNode body = with(valid(name, conn, topic), "schema_config.direct_schemas", null);
        String config = "{" + (secretKey == null ? "" : "\"api_secret_ref\": {\"scope\": \"" + scope + "\", \"key\": \""
                + secretKey + "\"}, ")
                + "\"payload_schema_locator\": " + payloadLocator
                + (keyLocator == null ? "" : ", \"key_schema_locator\": " + keyLocator) + "}";
        return with(body, REG, json(config));
    }

    private static String locator(String subject, String format) {
        return "{\"confluent_schema\": {\"subject\": \"" + subject + "\"}, \"format\": \"" + format + "\"}";
    }

    @Test
    void createsWithTheLatestVersionAndAnyNamingStrategy() {
        ObjectNode body = request(connection, "right", locator("rtx-value", "FORMAT_AVRO"),
                locator("rtx-ex.Key", "FORMAT_PROTOBUF"));
        as(ALICE).body(body.toString()).post(STREAMS).then().statusCode(200);
        String table = body.at("/ingestion_config/ingestion_destination/delta_table_name").asText();
        as(ALICE).get("/api/2.1/unity-catalog/tables/" + table).then().statusCode(200)
                .body("columns.find { it.name == 'value' }.type_text",
                        equalTo("struct<id:bigint,amount:double,note:string>"))
                .body("columns.find { it.name == 'key' }.type_text", equalTo("struct<id:string>"));

        as(ALICE).body(request(connection, null, locator("ex.Tx", "FORMAT_AVRO"), null).toString()).post(STREAMS)
                .then().statusCode(200);
    }

    /**
     * SPEC §11.1: a direct stream may take its schema from the registry (the connection names it; its bootstrap servers
     * are not used). Pushed values are the bytes a Kafka producer would send, Confluent framing included, as
     * {@code value_base64}; they decode with the registry's schema, and bytes framed with an id the registry does not
     * know are a NULL value, counted, as from Kafka.
     */
    @Test
    void aDirectStreamWithARegistrySchemaTakesPushes() {
        ObjectNode body = request(connection, "right", locator("rtx-value", "FORMAT_AVRO"), null);
        with(body, "source_config", json("{\"direct_source_config\": {}}"));
        String name = body.get("name").asText();
        as(ALICE).body(body.toString()).post(STREAMS).then().statusCode(200);
        int v2 = ConfluentWire.register(registry.url(), "rtx-value", "AVRO", AVRO_V2);
        org.apache.avro.generic.GenericRecord tx = new org.apache.avro.generic.GenericData.Record(
                ConfluentWire.parse(AVRO_V2));
        tx.put("id", 41L);
        tx.put("amount", 2.5);
        tx.put("note", "pushed");
        java.util.Base64.Encoder b64 = java.util.Base64.getEncoder();
        String framed = b64.encodeToString(ConfluentWire.avro(v2, tx));
        String unknown = b64.encodeToString(ConfluentWire.avro(999_999, tx));
        as(ALICE).body("{\"producer_id\": \"reg\", \"sequence\": 0, \"records\": [{\"value_base64\": \"" + framed
                + "\"}, {\"value_base64\": \"" + unknown + "\"}]}").post(STREAMS + "/" + name + "/records").then()
                .statusCode(200).body("committed_sequence", equalTo(0));
        as(ALICE).get(STREAMS + "/" + name).then().statusCode(200)
                .body("ingestion_status.rows_ingested", equalTo(2))
                .body("ingestion_status.decode_failures", equalTo(1));
        String[] parts = (name + "_ingestion").split("\\.");
        List<Map<String, Object>> rows = io.tributary.delta.IndependentReader.rows(
                tables.defaultLocation(parts[0], parts[1], parts[2]));
        assertThat(rows).hasSize(2);
        List<Map<String, Object>> decoded = rows.stream().filter(r -> r.get("value") != null).toList();
        assertThat(decoded).hasSize(1);
        @SuppressWarnings("unchecked")
        Map<String, Object> value = (Map<String, Object>) decoded.get(0).get("value");
        assertThat(value).containsEntry("id", 41L).containsEntry("amount", 2.5).containsEntry("note", "pushed");
        assertThat(rows).allSatisfy(r -> assertThat(r.get("record_source")).isEqualTo("stream"));
    }

    @Test
    void aWrongApiSecretNamesTheSecretReferenceAndNeverEchoesIt() {
        as(ALICE).body(request(connection, "wrong", locator("rtx-value", "FORMAT_AVRO"), null).toString())
                .post(STREAMS).then().statusCode(400)
                .body("error_code", equalTo("INVALID_PARAMETER_VALUE"))
                .body("message", startsWith(REG + ".api_secret_ref:"))
                .body("message", containsString("refused the credentials"))
                .body("message", not(containsString(WRONG_SECRET)))
                .body("message", not(containsString(API_SECRET)));
    }

    @Test
    void anUnreachableRegistryIsAClear400() {
        as(ALICE).body(request(downConnection, "right", locator("rtx-value", "FORMAT_AVRO"), null).toString())
                .post(STREAMS).then().statusCode(400)
                .body("message", startsWith(REG + ".payload_schema_locator.confluent_schema.subject:"))
                .body("message", containsString("cannot reach the schema registry"))
                .body("message", not(containsString(API_SECRET)));
    }

    @Test
    void subjectTypeAndExistenceAreChecked() {
        as(ALICE).body(request(connection, "right", locator("no-such-subject", "FORMAT_AVRO"), null).toString())
                .post(STREAMS).then().statusCode(400)
                .body("message", startsWith(REG + ".payload_schema_locator.confluent_schema.subject:"))
                .body("message", containsString("does not exist"));
        as(ALICE).body(request(connection, "right", locator("rtx-value", "FORMAT_PROTOBUF"), null).toString())
                .post(STREAMS).then().statusCode(400)
                .body("message", startsWith(REG + ".payload_schema_locator.format:"))
                .body("message", containsString("AVRO"));
        as(ALICE).body(request(connection, "right", locator("json-value", "FORMAT_AVRO"), null).toString())
                .post(STREAMS).then().statusCode(400)
                .body("message", startsWith(REG + ".payload_schema_locator.confluent_schema.subject:"))
                .body("message", containsString("direct_schemas"));
    }

    /**
     * The registry's secret is rotated while the stream runs: the registry stops taking the old one and the secret is
     * put anew. Before, a running pipeline kept the secret it was started with and failed on every retry until the
     * server restarted; now it reads its spec again before each retry.
     */
    /** Needs a pipeline, which only the server runs (stream-api on AWS serves the API alone). */
    @Test
    @Tag("server-only")
    void aRotatedRegistrySecretReachesTheRunningStream() throws Exception {
        String rotating = unique("rot");
        try (BasicAuthProxy gate = new BasicAuthProxy(registry.url(), API_KEY, "rot-secret-1");
                KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers", bootstrap),
                        new ByteArraySerializer(), new ByteArraySerializer())) {
            as(ALICE).body("{\"scope\": \"" + scope + "\", \"key\": \"" + rotating
                    + "\", \"string_value\": \"rot-secret-1\"}").post("/api/2.0/secrets/put").then().statusCode(200);
            String conn = unique("kafka-rot");
            as(ALICE).body("{\"name\": \"" + conn + "\", \"connection_type\": \"KAFKA\", \"options\": {"
                    + "\"bootstrap_servers\": \"" + bootstrap + "\", \"schema_registry_url\": \"" + gate.url()
                    + "/apis/ccompat/v7\", \"schema_registry_api_key\": \"" + API_KEY + "\", "
                    + "\"schema_registry_api_secret\": {\"scope\": \"" + scope + "\", \"key\": \"" + rotating
                    + "\"}}}").post("/api/2.0/connections").then().statusCode(200);
            String subject = unique("rot") + "-value";
            int v1 = ConfluentWire.register(registry.url(), subject, "AVRO", AVRO);
            String rotTopic = unique("rot");
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
                admin.createTopics(List.of(new NewTopic(rotTopic, 1, (short) 1))).all().get();
            }
            String name = "main.sr." + unique("rot").replace('-', '_');
            ObjectNode body = with(with(valid(name, conn, rotTopic), "schema_config.direct_schemas", null), REG,
                    json("{\"payload_schema_locator\": " + locator(subject, "FORMAT_AVRO") + "}"));
            as(ALICE).body(body.toString()).post(STREAMS).then().statusCode(200);

            org.apache.avro.generic.GenericRecord first = new org.apache.avro.generic.GenericData.Record(
                    ConfluentWire.parse(AVRO));
            first.put("id", 1L);
            producer.send(new ProducerRecord<>(rotTopic, ConfluentWire.avro(v1, first))).get();
            awaitRows(name, 1);

            gate.accept(API_KEY, "rot-secret-2");
            as(ALICE).body("{\"scope\": \"" + scope + "\", \"key\": \"" + rotating
                    + "\", \"string_value\": \"rot-secret-2\"}").post("/api/2.0/secrets/put").then().statusCode(200);
            // A new writer schema: the stream must ask the registry, with the rotated secret, to decode it.
            int v2 = ConfluentWire.register(registry.url(), subject, "AVRO", AVRO_V2);
            org.apache.avro.generic.GenericRecord second = new org.apache.avro.generic.GenericData.Record(
                    ConfluentWire.parse(AVRO_V2));
            second.put("id", 2L);
            second.put("note", "after the rotation");
            producer.send(new ProducerRecord<>(rotTopic, ConfluentWire.avro(v2, second))).get();
            awaitRows(name, 2);
            as(ALICE).get(STREAMS + "/" + name).then().statusCode(200).body("state", equalTo("RUNNING"))
                    .body("ingestion_status.decode_failures", equalTo(0));
            as(ALICE).delete(STREAMS + "/" + name).then().statusCode(200);
        }
    }

    private static void awaitRows(String stream, int rows) {
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(60))
                .pollInterval(java.time.Duration.ofMillis(500)).until(() -> as(ALICE).get(STREAMS + "/" + stream)
                        .jsonPath().getLong("ingestion_status.rows_ingested") >= rows);
    }
}
