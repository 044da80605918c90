package io.tributary.api;

import org.junit.jupiter.api.Tag;

import static io.tributary.testing.Api.ALICE;
import static io.tributary.testing.Api.BOB;
import static io.tributary.testing.Api.CAROL;
import static io.tributary.testing.Api.ROOT;
import static io.tributary.testing.Api.anonymous;
import static io.tributary.testing.Api.as;
import static io.tributary.testing.Api.unique;
import static io.tributary.testing.StreamRequests.json;
import static io.tributary.testing.StreamRequests.valid;
import static io.tributary.testing.StreamRequests.with;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.startsWith;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delta.kernel.Table;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.types.StructField;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.tributary.delta.Tables;
import io.tributary.schema.SchemaSource;
import io.tributary.schema.SideSchema;
import io.tributary.schema.StreamSchema;
import jakarta.inject.Inject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Streams end to end against the real broker, database and warehouse. */
@Tag("quarkus")
@QuarkusTest
class StreamsApiTest {
    static final String STREAMS = "/api/2.0/feature-engineering/streams";
    static final Engine KERNEL = DefaultEngine.create(new Configuration());

    @Inject
    Tables tables;
    @Inject
    io.tributary.testing.RecordingPipelines pipelines;
    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;
    @ConfigProperty(name = "tributary.warehouse")
    String warehouse;

    static String connection;
    static String topic;

    @BeforeEach
    void setUp() throws Exception {
        if (connection != null) {
            return;
        }
        connection = unique("kafka");
        as(ALICE).body("{\"name\": \"" + connection + "\", \"connection_type\": \"KAFKA\", \"options\": "
                + "{\"bootstrap_servers\": \"" + bootstrap + "\"}}").post("/api/2.0/connections").then().statusCode(200);
        topic = unique("tx");
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1))).all().get();
        }
        try (var producer = new KafkaProducer<>(Map.<String, Object>of("bootstrap.servers", bootstrap),
                new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 5; i++) {
                producer.send(new ProducerRecord<>(topic, 0, "k" + i, "{\"id\": \"" + i + "\"}")).get();
            }
            producer.send(new ProducerRecord<>(topic, 2, "k", "{}")).get();
        }
    }

    private static String createdName(String prefix) {
        return "main." + unique("sch") + "." + prefix;
    }

    @Test
    void createGetListDeleteLifecycle() {
        String name = createdName("orders");
        ObjectNode body = with(valid(name, connection, topic), "ingestion_config.deduplication_columns",
                List.of("value.id", "kafka_partition"));
        JsonPath created = as(ALICE).body(body.toString()).post(STREAMS).then().statusCode(200)
                .body("name", equalTo(name))
                .body("stream_id", matchesPattern("[0-9a-f-]{36}"))
                .body("created_at", matchesPattern("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z"))
                .body("created_by", equalTo("alice"))
                .body("state", equalTo("RUNNING"))
                .body("ingestion_status.table_version", equalTo(0))
                .body("ingestion_status.rows_ingested", equalTo(0))
                .body("backfill_status.state", equalTo("NOT_CONFIGURED"))
                .body("backfill_status.forced", equalTo(false))
                .body("schema_config.direct_schemas.payload_schema.json_schema", notNullValue())
                .extract().jsonPath();
        Map<String, Integer> offsets = new HashMap<>();
        for (Map<String, Object> p : created.<Map<String, Object>>getList("ingestion_status.partitions")) {
            assertThat(p.get("topic")).isEqualTo(topic);
            offsets.put(String.valueOf(p.get("partition")), (Integer) p.get("committed_offset"));
        }
        assertThat(offsets).isEqualTo(Map.of("0", 5, "1", 0, "2", 1));

        String table = name + "_ingestion";
        String location = tables.defaultLocation("main", name.split("\\.")[1], "orders_ingestion");
        assertThat(tables.exists(location)).isTrue();
        var snapshot = Table.forPath(KERNEL, location).getLatestSnapshot(KERNEL);
        assertThat(snapshot.getVersion()).isZero();
        assertThat(snapshot.getSchema().fields().stream().map(StructField::getName).toList()).containsExactly("key",
                "value", "stream_record_timestamp", "record_source", "kafka_topic", "kafka_partition", "kafka_offset");

        as(ALICE).get("/api/2.1/unity-catalog/tables/" + table).then().statusCode(200)
                .body("name", equalTo(table)).body("owner", equalTo("alice"))
                .body("storage_location", equalTo(location))
                .body("columns.name", hasItem("stream_record_timestamp"))
                .body("columns.find { it.name == 'value' }.type_text", startsWith("struct<"));

        as(ALICE).get(STREAMS + "/" + name.toUpperCase()).then().statusCode(200)
                .body("stream_id", equalTo(created.getString("stream_id")))
                .body("ingestion_status.partitions", hasSize(3));
        as(ALICE).queryParam("catalog_name", "main").queryParam("schema_name", name.split("\\.")[1])
                .get(STREAMS).then().statusCode(200).body("streams", hasSize(1))
                .body("streams[0].name", equalTo(name))
                .body("streams[0].schema_config.direct_schemas.payload_schema.json_schema",
                        org.hamcrest.Matchers.nullValue());

        as(ALICE).body(body.toString()).post(STREAMS).then().statusCode(409)
                .body("error_code", equalTo("RESOURCE_ALREADY_EXISTS")).body("message", startsWith("name:"));
        as(ALICE).body(with(body.deepCopy(), "name", createdName("other")).toString()).post(STREAMS).then()
                .statusCode(409).body("message",
                        startsWith("ingestion_config.ingestion_destination.delta_table_name:"));
        as(ALICE).delete("/api/2.0/connections/" + connection).then().statusCode(409)
                .body("error_code", equalTo("RESOURCE_CONFLICT"));

        as(ALICE).delete(STREAMS + "/" + name).then().statusCode(200).body(equalTo("{}"));
        assertThat(tables.exists(location)).isFalse();
        as(ALICE).get(STREAMS + "/" + name).then().statusCode(404).body("error_code",
                equalTo("RESOURCE_DOES_NOT_EXIST"));
        as(ALICE).delete(STREAMS + "/" + name).then().statusCode(404);
        as(ALICE).get("/api/2.1/unity-catalog/tables/" + table).then().statusCode(404);
    }

    @Test
    void grantMatrixOnAStream() {
        String name = createdName("granted");
        String table = name + "_ingestion";
        as(ALICE).body(valid(name, connection, topic).toString()).post(STREAMS).then().statusCode(200);
        String schema = name.split("\\.")[1];

        as(BOB).get(STREAMS + "/" + name).then().statusCode(403).body("error_code", equalTo("PERMISSION_DENIED"));
        as(BOB).queryParam("catalog_name", "main").queryParam("schema_name", schema).get(STREAMS).then()
                .statusCode(200).body("streams", hasSize(0));
        as(BOB).delete(STREAMS + "/" + name).then().statusCode(403);
        anonymous().get(STREAMS + "/" + name).then().statusCode(401).body("error_code", equalTo("UNAUTHENTICATED"));
        as("not-a-token").get(STREAMS + "/" + name).then().statusCode(401);
        as(ROOT).get(STREAMS + "/" + name).then().statusCode(200);

        as(BOB).body("{\"changes\": [{\"principal\": \"bob\", \"add\": [\"SELECT\"]}]}")
                .patch("/api/2.1/unity-catalog/permissions/table/" + table).then().statusCode(403);
        as(ALICE).body("{\"changes\": [{\"principal\": \"bob\", \"add\": [\"SELECT\"]}]}")
                .patch("/api/2.1/unity-catalog/permissions/table/" + table).then().statusCode(200)
                .body("privilege_assignments[0].privileges", hasItem("SELECT"));
        as(BOB).get(STREAMS + "/" + name).then().statusCode(200);
        as(BOB).get("/api/2.1/unity-catalog/tables/" + table).then().statusCode(200);
        as(BOB).queryParam("catalog_name", "main").queryParam("schema_name", schema).get(STREAMS).then()
                .statusCode(200).body("streams.name", hasItem(name));
        as(BOB).delete(STREAMS + "/" + name).then().statusCode(403).body("message", containsString("MANAGE"));
        as(CAROL).get(STREAMS + "/" + name).then().statusCode(403);

        as(ALICE).body("{\"changes\": [{\"principal\": \"carol\", \"add\": [\"MANAGE\"]}]}")
                .patch("/api/2.1/unity-catalog/permissions/table/" + table).then().statusCode(200);
        // MANAGE alone does not let carol read the stream, but lets her delete it.
        as(CAROL).get(STREAMS + "/" + name).then().statusCode(403);
        as(CAROL).delete(STREAMS + "/" + name).then().statusCode(200);
        // The grants went with the table.
        as(ROOT).get("/api/2.1/unity-catalog/permissions/table/" + table).then().statusCode(404);
    }

    @Test
    void createNeedsUseConnectionAndSelectOnTheBackfillSource() {
        String backfill = "main." + unique("hist") + ".events";
        String[] parts = backfill.split("\\.");
        tables.create(tables.defaultLocation(parts[0], parts[1], parts[2]), plainRowSchema(), Map.of());
        String name = createdName("withbackfill");
        ObjectNode body = with(valid(name, connection, topic), "ingestion_config.backfill_source.delta_table_name",
                backfill);
        // Bob may use the connection but has no SELECT on the (unregistered) backfill source: only an admin has.
        as(ALICE).body("{\"changes\": [{\"principal\": \"bob\", \"add\": [\"USE CONNECTION\"]}]}")
                .patch("/api/2.1/unity-catalog/permissions/connection/" + connection).then().statusCode(200);
        as(BOB).body(body.toString()).post(STREAMS).then().statusCode(403).body("message", containsString(backfill));
        as(ROOT).body("{\"changes\": [{\"principal\": \"bob\", \"add\": [\"SELECT\"]}]}")
                .patch("/api/2.1/unity-catalog/permissions/table/" + backfill).then().statusCode(200);
        as(BOB).body(body.toString()).post(STREAMS).then().statusCode(200)
                .body("backfill_status.state", equalTo("WAITING_FOR_OVERLAP"))
                .body("created_by", equalTo("bob"));
        as(BOB).delete(STREAMS + "/" + name).then().statusCode(200);
        as(CAROL).body(with(body.deepCopy(), "name", createdName("carols")).toString()).post(STREAMS).then()
                .statusCode(403).body("message", containsString("USE CONNECTION"));
    }

    @Test
    void backfillSourceMustExistWithATimestampColumn() {
        String name = createdName("bf");
        String missing = "main." + unique("nohist") + ".events";
        rejects(with(valid(name, connection, topic), "ingestion_config.backfill_source.delta_table_name", missing),
                "ingestion_config.backfill_source.delta_table_name");
        String noTimestamp = "main." + unique("badhist") + ".events";
        String[] parts = noTimestamp.split("\\.");
        Schema onlyId = SchemaBuilder.record("r").fields().optionalString("id").endRecord();
        tables.create(tables.defaultLocation(parts[0], parts[1], parts[2]), onlyId, Map.of());
        as(ROOT).body(with(valid(name, connection, topic), "ingestion_config.backfill_source.delta_table_name",
                noTimestamp).toString()).post(STREAMS).then().statusCode(400)
                .body("message", startsWith("ingestion_config.backfill_source.delta_table_name:"))
                .body("message", containsString("stream_record_timestamp"));
        assertNothingLeft(name);
    }

    @Test
    void registeredExternalTablesServeAsBackfillSources() {
        String location = warehouse + "/external/" + unique("ext");
        tables.create(location, plainRowSchema(), Map.of());
        String registered = "ext." + unique("reg") + ".history";
        as(BOB).body("{\"name\": \"" + registered + "\", \"storage_location\": \"" + location + "\"}")
                .post("/api/2.1/unity-catalog/tables").then().statusCode(200)
                .body("owner", equalTo("bob")).body("storage_location", equalTo(location))
                .body("columns", hasSize(7));
        as(BOB).body("{\"name\": \"" + registered + "\", \"storage_location\": \"" + location + "\"}")
                .post("/api/2.1/unity-catalog/tables").then().statusCode(409);
        as(BOB).body("{\"name\": \"ext.x." + unique("y") + "\", \"storage_location\": \"" + warehouse + "/nothing\"}")
                .post("/api/2.1/unity-catalog/tables").then().statusCode(400)
                .body("message", startsWith("storage_location:"));
        as(BOB).body("{\"name\": \"ext.x.y\", \"storage_location\": \"relative/path\"}")
                .post("/api/2.1/unity-catalog/tables").then().statusCode(400)
                .body("message", startsWith("storage_location:"));
        String name = createdName("fromext");
        ObjectNode body = with(valid(name, connection, topic), "ingestion_config.backfill_source.delta_table_name",
                registered);
        as(ALICE).body(body.toString()).post(STREAMS).then().statusCode(403);
        as(BOB).body("{\"changes\": [{\"principal\": \"alice\", \"add\": [\"SELECT\"]}]}")
                .patch("/api/2.1/unity-catalog/permissions/table/" + registered).then().statusCode(200);
        as(ALICE).body(body.toString()).post(STREAMS).then().statusCode(200);
        // A registered table's name is taken: it cannot become an ingestion destination.
        as(ALICE).body(with(valid(createdName("clash"), connection, topic),
                "ingestion_config.ingestion_destination.delta_table_name", registered).toString()).post(STREAMS)
                .then().statusCode(409).body("message",
                        startsWith("ingestion_config.ingestion_destination.delta_table_name:"));
        as(ALICE).delete(STREAMS + "/" + name).then().statusCode(200);
    }

    @Test
    void destinationTableAlreadyInTheWarehouseIsAConflict() {
        String name = createdName("taken");
        String schema = name.split("\\.")[1];
        String location = tables.defaultLocation("main", schema, "taken_ingestion");
        tables.create(location, plainRowSchema(), Map.of());
        as(ALICE).body(valid(name, connection, topic).toString()).post(STREAMS).then().statusCode(409)
                .body("error_code", equalTo("RESOURCE_ALREADY_EXISTS"))
                .body("message", startsWith("ingestion_config.ingestion_destination.delta_table_name:"));
        as(ALICE).get(STREAMS + "/" + name).then().statusCode(404);
        assertThat(tables.exists(location)).isTrue();
    }

    @Test
    void invalidSchemasAndColumnsNameTheField() {
        String name = createdName("badschema");
        rejects(with(valid(name, connection, topic), "schema_config.direct_schemas.payload_schema",
                json("{\"avro_schema\": \"{not avro\"}")), "schema_config.direct_schemas.payload_schema");
        rejects(with(valid(name, connection, topic), "schema_config.direct_schemas.key_schema",
                json("{\"json_schema\": \"[1, 2\"}")), "schema_config.direct_schemas.key_schema");
        rejects(with(valid(name, connection, topic), "schema_config.direct_schemas.payload_schema",
                json("{\"proto_schema\": {\"schema_text\": \"syntax = \\\"proto3\\\"; package p; "
                        + "message A { string s = 1; }\", \"message_name\": \"A\"}}")),
                "schema_config.direct_schemas.payload_schema");
        rejects(with(valid(name, connection, topic), "ingestion_config.deduplication_columns",
                List.of("kafka_offset", "value.nope")), "ingestion_config.deduplication_columns[1]");
        rejects(with(valid(name, connection, topic), "ingestion_config.deduplication_columns",
                List.of("value.id.deeper")), "ingestion_config.deduplication_columns[0]");
        assertNothingLeft(name);
    }

    @Test
    void unreachableKafkaIsA400OnConnectionConfigAndLeavesNothing() {
        String dead = unique("dead");
        as(ALICE).body("{\"name\": \"" + dead + "\", \"connection_type\": \"KAFKA\", \"options\": "
                + "{\"bootstrap_servers\": \"127.0.0.1:1\", \"sasl_mechanism\": \"PLAIN\", \"user\": \"u\", "
                + "\"password\": \"dead-kafka-password\"}}").post("/api/2.0/connections").then().statusCode(200);
        String name = createdName("unreachable");
        as(ALICE).body(valid(name, dead, topic).toString()).post(STREAMS).then().statusCode(400)
                .body("error_code", equalTo("INVALID_PARAMETER_VALUE"))
                .body("message", startsWith("connection_config:"))
                .body(not(containsString("dead-kafka-password")));
        assertNothingLeft(name);
    }

    /**
     * On AWS too: stream-api maps the topics the pattern matches at create (StreamApiLambdaTest), and the backfill
     * function's schedule maps those that start to match later (BackfillPatternTest).
     */
    @Test
    void subscribePatternCapturesItsPartitions() {
        String name = createdName("pattern");
        ObjectNode body = valid(name, connection, topic);
        with(body, "source_config.kafka_stream_config.subscription_mode", json("{\"subscribe_pattern\": \""
                + topic + "|" + unique("none") + ".*\"}"));
        as(ALICE).body(body.toString()).post(STREAMS).then().statusCode(200)
                .body("ingestion_status.partitions", hasSize(3))
                .body("source_config.kafka_stream_config.subscription_mode.subscribe_pattern", notNullValue());
        as(ALICE).delete(STREAMS + "/" + name).then().statusCode(200);
    }

    @Test
    void assignCapturesItsPartitions() {
        String assigned = createdName("assigned");
        ObjectNode assign = valid(assigned, connection, topic);
        with(assign, "source_config.kafka_stream_config.subscription_mode",
                json("{\"assign\": \"{\\\"" + topic + "\\\": [0, 2]}\"}"));
        as(ALICE).body(assign.toString()).post(STREAMS).then().statusCode(200)
                .body("ingestion_status.partitions.partition", org.hamcrest.Matchers.contains(0, 2))
                .body("ingestion_status.partitions.committed_offset", org.hamcrest.Matchers.contains(5, 1));
        as(ALICE).delete(STREAMS + "/" + assigned).then().statusCode(200);
    }

    @Test
    void thePipelineStartsAfterTheTableExistsAndStopsBeforeItIsDeleted() {
        String name = createdName("piped");
        String id = as(ALICE).body(valid(name, connection, topic).toString()).post(STREAMS).then().statusCode(200)
                .extract().path("stream_id");
        var spec = pipelines.started.stream().filter(s -> s.streamId().equals(id)).findFirst().orElseThrow();
        assertThat(spec.streamName()).isEqualTo(name);
        assertThat(tables.exists(spec.tableLocation())).isTrue();
        assertThat(spec.subscription()).isEqualTo(new io.tributary.ingest.Subscription.Topics(List.of(topic)));
        as(ALICE).delete(STREAMS + "/" + name).then().statusCode(200);
        assertThat(pipelines.stopped).contains(new io.tributary.testing.RecordingPipelines.Stop(id, true));
        assertThat(tables.exists(spec.tableLocation())).isFalse();
    }

    /** The server's own consumer ingests here; on Lambda the ingest function does (its tests cover that path). */
    @Test
    @Tag("server-only")
    void recordsProducedAfterCreateShowUpInTheStatus() throws Exception {
        String name = createdName("live");
        String liveTopic = unique("live");
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(liveTopic, 2, (short) 1))).all().get();
        }
        String created = as(ALICE).body(valid(name, connection, liveTopic).toString()).post(STREAMS).then()
                .statusCode(200).extract().path("stream_id");
        try (var producer = new KafkaProducer<>(Map.<String, Object>of("bootstrap.servers", bootstrap),
                new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 3; i++) {
                producer.send(new ProducerRecord<>(liveTopic, 1, "k" + i, "{\"id\": \"live" + i + "\"}")).get();
            }
        }
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(60)).untilAsserted(() ->
                as(ALICE).get(STREAMS + "/" + name).then().statusCode(200)
                        .body("stream_id", equalTo(created))
                        .body("state", equalTo("RUNNING"))
                        .body("ingestion_status.rows_ingested", equalTo(3))
                        .body("ingestion_status.partitions.find { it.partition == 1 }.committed_offset",
                                equalTo(3)));
        as(ALICE).delete(STREAMS + "/" + name).then().statusCode(200);
    }

    private void assertNothingLeft(String name) {
        as(ROOT).get(STREAMS + "/" + name).then().statusCode(404);
        String[] parts = name.split("\\.");
        assertThat(tables.exists(tables.defaultLocation(parts[0], parts[1], parts[2] + "_ingestion"))).isFalse();
        as(ROOT).get("/api/2.1/unity-catalog/tables/" + name + "_ingestion").then().statusCode(404);
    }

    private static void rejects(ObjectNode body, String field) {
        as(ROOT).body(body.toString()).post(STREAMS).then().statusCode(400)
                .body("error_code", equalTo("INVALID_PARAMETER_VALUE"))
                .body("message", startsWith(field));
    }

    static Schema plainRowSchema() {
        SideSchema plain = SideSchema.compile(new SchemaSource.Plain(), "x");
        return StreamSchema.of(plain, plain).rowSchema();
    }
}
