package io.tributary.api;

import org.junit.jupiter.api.Tag;

import static io.tributary.api.StreamsFixture.createdName;
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
import jakarta.inject.Inject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
    static final String STREAMS = StreamsFixture.STREAMS;
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
        StreamsFixture.Source source = StreamsFixture.create(bootstrap);
        connection = source.connection();
        topic = source.topic();
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
}
