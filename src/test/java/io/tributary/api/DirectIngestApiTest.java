package io.tributary.api;

import static io.tributary.testing.Api.ALICE;
import static io.tributary.testing.Api.BOB;
import static io.tributary.testing.Api.as;
import static io.tributary.testing.Api.unique;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.CodedOutputStream;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import io.restassured.response.Response;
import io.tributary.delta.IndependentReader;
import io.tributary.delta.Tables;
import io.tributary.ingest.OpenedIngester;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.direct.GroupCommit;
import io.tributary.ingest.direct.Push;
import io.tributary.ingest.direct.PushBodies;
import io.tributary.ingest.direct.PushOutcome;
import io.tributary.registry.directory.StreamDirectory;
import io.tributary.registry.lock.StreamWriteLocks;
import io.tributary.testing.TestFiles;
import jakarta.inject.Inject;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * SPEC "Direct ingest" against the real server: streams without Kafka, pushes answered once committed, exactly once
 * per producer (retries, gaps, concurrent producers, a second writer process on the same table), group commit, the
 * MODIFY privilege and the write fence against DELETE. Tables are read back with Kernel's stock engine.
 */
@Tag("quarkus")
@QuarkusTest
class DirectIngestApiTest {
    static final String STREAMS = "/api/2.0/feature-engineering/streams";
    static final ObjectMapper JSON = new ObjectMapper();
    static final String JSON_SCHEMA =
            "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"},\"amount\":{\"type\":\"integer\"}}}";
    static final String AVRO_SCHEMA = "{\"type\":\"record\",\"name\":\"Order\",\"fields\":["
            + "{\"name\":\"id\",\"type\":\"string\"},{\"name\":\"amount\",\"type\":\"long\"}]}";
    static final String PROTO_SCHEMA = "syntax = \"proto3\";\nmessage Order {\n  string id = 1;\n  int64 amount = 2;\n}\n";

    @Inject
    Tables tables;
    @Inject
    StreamDirectory directory;
    @Inject
    StreamWriteLocks writeLocks;
    @Inject
    javax.sql.DataSource dataSource;

    record Created(String name, String id, String location) {}

    private Created create(String payloadSchemaKind, String payloadSchema) {
        return create(payloadSchemaKind, payloadSchema, false);
    }

    private Created create(String payloadSchemaKind, String payloadSchema, boolean rescue) {
        String schema = unique("d");
        String name = "main." + schema + ".events";
        ObjectNode root = JSON.createObjectNode();
        root.put("name", name);
        root.putObject("source_config").putObject("direct_source_config");
        ObjectNode side = root.putObject("schema_config").putObject("direct_schemas").putObject("payload_schema");
        if (payloadSchemaKind.equals("proto_schema")) {
            side.putObject("proto_schema").put("schema_text", payloadSchema).put("message_name", "Order");
        } else {
            side.put(payloadSchemaKind, payloadSchema);
        }
        ObjectNode ingestion = root.putObject("ingestion_config");
        ingestion.putObject("ingestion_destination").put("delta_table_name", name + "_ingestion");
        if (rescue) {
            ingestion.put("rescue_undecodable", true);
        }
        String id = as(ALICE).body(root.toString()).post(STREAMS).then().statusCode(200)
                .body("state", equalTo("RUNNING")).extract().jsonPath().getString("stream_id");
        return new Created(name, id, tables.defaultLocation("main", schema, "events_ingestion"));
    }

    private static String jsonPush(String producer, long sequence, int records, int from) {
        ObjectNode body = JSON.createObjectNode();
        body.put("producer_id", producer);
        body.put("sequence", sequence);
        ArrayNode list = body.putArray("records");
        for (int i = 0; i < records; i++) {
            ObjectNode r = list.addObject();
            r.put("key", producer + "/" + (from + i));
            r.putObject("value").put("id", producer + "-" + (from + i)).put("amount", from + i);
            r.put("timestamp", "2026-12-01T10:00:00Z");
        }
        return body.toString();
    }

    private static Response push(String token, String stream, String body) {
        return as(token).body(body).post(STREAMS + "/" + stream + "/records");
    }

    @Test
    void aJsonSchemaStreamTakesPushesExactlyOnceAndRefusesGaps() {
        Created s = create("json_schema", JSON_SCHEMA);
        // SPEC 11.1: a direct stream's status lists its producers, none before the first push.
        as(ALICE).get(STREAMS + "/" + s.name()).then().statusCode(200)
                .body("ingestion_status.partitions.size()", equalTo(0))
                .body("ingestion_status.producers.size()", equalTo(0));
        Response first = push(ALICE, s.name(), jsonPush("p-1", 0, 3, 0));
        first.then().statusCode(200).body("producer_id", equalTo("p-1")).body("committed_sequence", equalTo(0));
        long version = first.jsonPath().getLong("table_version");
        assertThat(IndependentReader.version(s.location())).as("acknowledged means committed").isEqualTo(version);

        // A retry of the same batch is acknowledged again and writes nothing.
        push(ALICE, s.name(), jsonPush("p-1", 0, 3, 0)).then().statusCode(200).body("committed_sequence", equalTo(0));
        assertThat(IndependentReader.version(s.location())).isEqualTo(version);

        // A gap is refused with the expected sequence, and writes nothing.
        push(ALICE, s.name(), jsonPush("p-1", 2, 1, 3)).then().statusCode(409)
                .body("error_code", equalTo("RESOURCE_CONFLICT"))
                .body("message", containsString("expected_sequence 1"));
        // A producer new to the table starts at 0.
        push(ALICE, s.name(), jsonPush("p-2", 5, 1, 0)).then().statusCode(409)
                .body("message", containsString("expected_sequence 0"));
        assertThat(IndependentReader.version(s.location())).isEqualTo(version);

        push(ALICE, s.name(), jsonPush("p-1", 1, 2, 3)).then().statusCode(200).body("committed_sequence", equalTo(1));
        long beforeBad = IndependentReader.version(s.location());
        // A value its schema cannot decode is refused, naming the record, and nothing of the batch is written: the
        // producer still holds it (from Kafka it could only become a NULL). The stream keeps no rescued records.
        push(ALICE, s.name(), "{\"producer_id\": \"p-2\", \"sequence\": 0, \"records\": [{\"value\": "
                + "{\"id\": \"fine\", \"amount\": 1}}, {\"value\": {\"id\": \"x\", \"amount\": \"not a number\"}}]}")
                .then().statusCode(400).body("error_code", equalTo("INVALID_PARAMETER_VALUE"))
                .body("message", containsString("records[1].value"))
                .body("message", containsString("rescue_undecodable"));
        assertThat(IndependentReader.version(s.location())).isEqualTo(beforeBad);
        push(ALICE, s.name(), "{\"producer_id\": \"p-2\", \"sequence\": 0, \"records\": [{\"value\": null}]}")
                .then().statusCode(200).body("committed_sequence", equalTo(0));

        List<Map<String, Object>> rows = IndependentReader.rows(s.location());
        assertThat(rows).hasSize(6);
        Set<Object> ids = new HashSet<>();
        for (Map<String, Object> row : rows) {
            assertThat(row.get("record_source")).isEqualTo("stream");
            assertThat(row.get("kafka_topic")).isNull();
            assertThat(row.get("kafka_partition")).isNull();
            assertThat(row.get("kafka_offset")).isNull();
            if (row.get("value") != null) {
                ids.add(((Map<?, ?>) row.get("value")).get("id"));
            }
        }
        assertThat(ids).containsExactlyInAnyOrder("p-1-0", "p-1-1", "p-1-2", "p-1-3", "p-1-4");
        as(ALICE).get(STREAMS + "/" + s.name()).then().statusCode(200)
                .body("ingestion_status.rows_ingested", equalTo(6))
                .body("ingestion_status.decode_failures", equalTo(0))
                .body("ingestion_status.partitions.size()", equalTo(0))
                .body("ingestion_status.producers.find { it.producer_id == 'p-1' }.committed_sequence", equalTo(1))
                .body("ingestion_status.producers.find { it.producer_id == 'p-2' }.committed_sequence", equalTo(0));
    }

    /** A stream keeping rescued records takes a value its schema cannot decode as from Kafka: NULL, counted, kept. */
    @Test
    void withRescueAValueItsSchemaCannotDecodeIsTakenAsFromKafka() {
        Created s = create("json_schema", JSON_SCHEMA, true);
        push(ALICE, s.name(), "{\"producer_id\": \"p\", \"sequence\": 0, \"records\": [{\"value\": "
                + "{\"id\": \"x\", \"amount\": \"not a number\"}}]}").then().statusCode(200)
                .body("committed_sequence", equalTo(0));
        List<Map<String, Object>> rows = IndependentReader.rows(s.location());
        assertThat(rows).hasSize(1);
        assertThat(rows.get(0).get("value")).isNull();
        Map<?, ?> rescued = (Map<?, ?>) rows.get(0).get("_rescued_data");
        assertThat(rescued).as("the value's bytes are kept").isNotNull();
        assertThat(rescued.get("side")).isEqualTo("value");
        as(ALICE).get(STREAMS + "/" + s.name()).then().statusCode(200)
                .body("ingestion_status.decode_failures", equalTo(1));
    }

    /**
     * A producer forgotten by maintenance (SPEC 11.3) while this server still remembers its position: starting over at
     * 0 is written (before, the server's remembered position took the batch for a retry of an old one, acknowledged
     * it and wrote nothing), a late retry of an old sequence is refused, and the status no longer lists it.
     */
    @Test
    void aProducerForgottenByMaintenanceStartsOverAtZeroEvenWhereItsPositionIsRemembered() throws Exception {
        Created s = create("json_schema", JSON_SCHEMA);
        push(ALICE, s.name(), jsonPush("weekly", 0, 2, 0)).then().statusCode(200);
        push(ALICE, s.name(), jsonPush("weekly", 1, 2, 2)).then().statusCode(200);
        push(ALICE, s.name(), jsonPush("other", 0, 1, 0)).then().statusCode(200);
        Thread.sleep(5);
        assertThat(tables.open(s.location()).forgetProducersIdleSince(java.time.Instant.now()))
                .containsExactlyInAnyOrder("weekly", "other");
        as(ALICE).get(STREAMS + "/" + s.name()).then().statusCode(200)
                .body("ingestion_status.producers.size()", equalTo(0));

        push(ALICE, s.name(), jsonPush("weekly", 0, 3, 100)).then().statusCode(200)
                .body("committed_sequence", equalTo(0));
        assertThat(IndependentReader.rows(s.location())).hasSize(8);
        push(ALICE, s.name(), jsonPush("other", 0, 1, 0)).then().statusCode(200);
        assertThat(IndependentReader.rows(s.location())).hasSize(9);
        push(ALICE, s.name(), jsonPush("weekly", 5, 1, 200)).then().statusCode(409)
                .body("message", containsString("expected_sequence 1"));
        as(ALICE).get(STREAMS + "/" + s.name()).then().statusCode(200)
                .body("ingestion_status.producers.size()", equalTo(2))
                .body("ingestion_status.producers.find { it.producer_id == 'weekly' }.committed_sequence", equalTo(0));
    }

    @Test
    void aMalformedPushIsA400NamingTheRecordAndFieldAndWritesNothing() {
        Created s = create("json_schema", JSON_SCHEMA);
        long version = IndependentReader.version(s.location());
        push(ALICE, s.name(), "{\"sequence\": 0, \"records\": [{\"value\": {}}]}").then().statusCode(400)
                .body("error_code", equalTo("INVALID_PARAMETER_VALUE")).body("message", containsString("producer_id"));
        push(ALICE, s.name(), "{\"producer_id\": \"p\", \"sequence\": 0, \"records\": [{\"value\": {}}, "
                + "{\"value\": {}, \"timestamp\": \"yesterday\"}]}").then().statusCode(400)
                .body("message", containsString("records[1].timestamp"));
        push(ALICE, s.name(), "{\"producer_id\": \"p\", \"sequence\": 0, \"records\": [{\"value\": {}, "
                + "\"valeu\": 1}]}").then().statusCode(400).body("message", containsString("records[0].valeu"));
        push(ALICE, s.name(), "{\"producer_id\": \"p\", \"sequence\": -1, \"records\": [{}]}").then()
                .statusCode(400).body("message", containsString("sequence"));
        push(ALICE, s.name(), "{\"producer_id\": \"p/q\", \"sequence\": 0, \"records\": [{}]}").then()
                .statusCode(400).body("message", containsString("producer_id"));
        push(ALICE, s.name(), "{\"producer_id\": \"p\", \"sequence\": 0, \"records\": []}").then()
                .statusCode(400).body("message", containsString("records"));
        push(ALICE, s.name(), "not json").then().statusCode(400);
        assertThat(IndependentReader.version(s.location())).isEqualTo(version);
        // The same producer can still start at 0: nothing was recorded for it.
        push(ALICE, s.name(), jsonPush("p", 0, 1, 0)).then().statusCode(200);
    }

    @Test
    void aPushSentWithCurlsDefaultTypeIsReadAsJsonAndAnUnknownTypeIsNamed() {
        Created s = create("json_schema", JSON_SCHEMA);
        // curl -d sends application/x-www-form-urlencoded; every other endpoint reads that as JSON.
        as(ALICE).contentType("application/x-www-form-urlencoded").body(jsonPush("p-1", 0, 2, 0))
                .post(STREAMS + "/" + s.name() + "/records").then().statusCode(200)
                .body("committed_sequence", equalTo(0));
        as(ALICE).contentType("text/plain").body(jsonPush("p-1", 1, 1, 2))
                .post(STREAMS + "/" + s.name() + "/records").then().statusCode(200)
                .body("committed_sequence", equalTo(1));
        long version = IndependentReader.version(s.location());
        as(ALICE).contentType("application/octet-stream").body(new byte[] {1, 2, 3})
                .post(STREAMS + "/" + s.name() + "/records").then().statusCode(400)
                .body("error_code", equalTo("INVALID_PARAMETER_VALUE"))
                .body("message", containsString("Content-Type"))
                .body("message", containsString("application/x-protobuf"));
        assertThat(IndependentReader.version(s.location())).isEqualTo(version);
        assertThat(IndependentReader.rows(s.location())).hasSize(3);
    }

    @Test
    void avroStreamsTakeAvroJsonAndBinaryAvroBodies() throws Exception {
        Created s = create("avro_schema", AVRO_SCHEMA);
        push(ALICE, s.name(), "{\"producer_id\": \"a\", \"sequence\": 0, \"records\": [{\"value\": "
                + "{\"id\": \"j-1\", \"amount\": 7}}]}").then().statusCode(200);

        Schema order = new Schema.Parser().parse(AVRO_SCHEMA);
        GenericRecord value = new GenericData.Record(order);
        value.put("id", "b-1");
        value.put("amount", 8L);
        GenericRecord record = new GenericData.Record(PushBodies.AVRO_SCHEMA.getField("records").schema()
                .getElementType());
        record.put("key", java.nio.ByteBuffer.wrap("k".getBytes(StandardCharsets.UTF_8)));
        record.put("value", java.nio.ByteBuffer.wrap(avro(order, value)));
        record.put("timestamp_ms", 1_764_583_200_000L);
        GenericRecord request = new GenericData.Record(PushBodies.AVRO_SCHEMA);
        request.put("producer_id", "a");
        request.put("sequence", 1L);
        request.put("records", List.of(record));
        as(ALICE).contentType("avro/binary").body(avro(PushBodies.AVRO_SCHEMA, request))
                .post(STREAMS + "/" + s.name() + "/records").then().statusCode(200)
                .body("committed_sequence", equalTo(1));

        List<Map<String, Object>> rows = IndependentReader.rows(s.location());
        assertThat(rows).extracting(r -> (Object) ((Map<?, ?>) r.get("value")).get("id")).containsExactlyInAnyOrder("j-1", "b-1");
        assertThat(rows).extracting(r -> (Object) ((Map<?, ?>) r.get("value")).get("amount")).containsExactlyInAnyOrder(7L, 8L);
    }

    @Test
    void protobufStreamsTakeBinaryProtobufBodiesAndSayHowWhenSentJson() throws Exception {
        Created s = create("proto_schema", PROTO_SCHEMA);
        push(ALICE, s.name(), "{\"producer_id\": \"b\", \"sequence\": 0, \"records\": [{\"value\": {\"id\": \"x\"}}]}")
                .then().statusCode(400).body("message", containsString("records[0].value"))
                .body("message", containsString("application/x-protobuf"));

        ByteArrayOutputStream message = new ByteArrayOutputStream();
        CodedOutputStream m = CodedOutputStream.newInstance(message);
        m.writeString(1, "pb-1");
        m.writeInt64(2, 9);
        m.flush();
        ByteArrayOutputStream rec = new ByteArrayOutputStream();
        CodedOutputStream r = CodedOutputStream.newInstance(rec);
        r.writeByteArray(2, message.toByteArray());
        r.writeInt64(3, 1_764_583_200_000L);
        r.flush();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        CodedOutputStream b = CodedOutputStream.newInstance(body);
        b.writeString(1, "b");
        b.writeInt64(2, 0);
        b.writeByteArray(3, rec.toByteArray());
        b.writeByteArray(3, rec.toByteArray());
        b.flush();
        as(ALICE).contentType("application/x-protobuf").body(body.toByteArray())
                .post(STREAMS + "/" + s.name() + "/records").then().statusCode(200)
                .body("committed_sequence", equalTo(0));
        // The same batch base64 in JSON is a retry: acknowledged, nothing written.
        String base64 = java.util.Base64.getEncoder().encodeToString(message.toByteArray());
        push(ALICE, s.name(), "{\"producer_id\": \"b\", \"sequence\": 0, \"records\": [{\"value_base64\": \""
                + base64 + "\"}]}").then().statusCode(200);
        push(ALICE, s.name(), "{\"producer_id\": \"b\", \"sequence\": 1, \"records\": [{\"value_base64\": \""
                + base64 + "\"}]}").then().statusCode(200).body("committed_sequence", equalTo(1));

        List<Map<String, Object>> rows = IndependentReader.rows(s.location());
        assertThat(rows).hasSize(3);
        assertThat(rows).extracting(x -> (Object) ((Map<?, ?>) x.get("value")).get("id")).containsOnly("pb-1");
    }

    @Test
    void pushingNeedsModifyOnTheTable() {
        Created s = create("json_schema", JSON_SCHEMA);
        String table = s.name() + "_ingestion";
        push(BOB, s.name(), jsonPush("p", 0, 1, 0)).then().statusCode(403)
                .body("error_code", equalTo("PERMISSION_DENIED")).body("message", containsString("MODIFY"));
        as(ALICE).body("{\"changes\": [{\"principal\": \"bob\", \"add\": [\"SELECT\"]}]}")
                .patch("/api/2.1/unity-catalog/permissions/table/" + table).then().statusCode(200);
        push(BOB, s.name(), jsonPush("p", 0, 1, 0)).then().statusCode(403);
        as(ALICE).body("{\"changes\": [{\"principal\": \"bob\", \"add\": [\"MODIFY\"]}]}")
                .patch("/api/2.1/unity-catalog/permissions/table/" + table).then().statusCode(200);
        push(BOB, s.name(), jsonPush("p", 0, 1, 0)).then().statusCode(200);
        // The first push opens the stream's committer, which can outlast the 2 s the access is remembered for; the
        // second leaves it freshly remembered for the revoke below.
        push(BOB, s.name(), jsonPush("p", 1, 1, 1)).then().statusCode(200);
        assertThat(IndependentReader.rows(s.location())).hasSize(2);
        // Revoked on this server: the next push is refused at once, not once the remembered access expires.
        as(ALICE).body("{\"changes\": [{\"principal\": \"bob\", \"remove\": [\"MODIFY\"]}]}")
                .patch("/api/2.1/unity-catalog/permissions/table/" + table).then().statusCode(200);
        push(BOB, s.name(), jsonPush("p", 2, 1, 2)).then().statusCode(403);
        assertThat(IndependentReader.rows(s.location())).hasSize(2);
    }

    /**
     * Another server deletes the stream and creates it again under its name, which this server does not hear of: its
     * remembered stream is gone, so the push reads the registry again and lands in the new stream's table, never in
     * the old one's and never as a 404 while the memory lasts.
     */
    @Test
    void aStreamDeletedAndCreatedAgainByAnotherServerTakesPushesAtOnce() throws Exception {
        Created old = create("json_schema", JSON_SCHEMA);
        push(ALICE, old.name(), jsonPush("p", 0, 2, 0)).then().statusCode(200);
        // What another server's delete leaves in the registry and the warehouse.
        try (java.sql.Connection c = dataSource.getConnection(); java.sql.Statement st = c.createStatement()) {
            st.execute("DELETE FROM streams WHERE id = '" + old.id() + "'");
            st.execute("DELETE FROM registered_tables WHERE full_name = '" + old.name() + "_ingestion'");
        }
        List<java.nio.file.Path> files = new ArrayList<>(TestFiles.under(old.location()));
        java.util.Collections.reverse(files); // what is below a directory comes after it
        for (java.nio.file.Path f : files) {
            java.nio.file.Files.delete(f);
        }
        String again = as(ALICE).body("{\"name\": \"" + old.name() + "\", \"source_config\": "
                + "{\"direct_source_config\": {}}, \"schema_config\": {\"direct_schemas\": {\"payload_schema\": "
                + "{\"json_schema\": " + JSON.writeValueAsString(JSON_SCHEMA) + "}}}, \"ingestion_config\": "
                + "{\"ingestion_destination\": {\"delta_table_name\": \"" + old.name() + "_ingestion\"}}}")
                .post(STREAMS).then().statusCode(200).extract().jsonPath().getString("stream_id");
        assertThat(again).isNotEqualTo(old.id());
        push(ALICE, old.name(), jsonPush("p", 0, 3, 10)).then().statusCode(200).body("committed_sequence", equalTo(0));
        assertThat(IndependentReader.rows(old.location())).hasSize(3);
    }

    @Test
    void aDirectStreamNamesNoKafka() {
        String body = "{\"name\": \"main." + unique("v") + ".e\", \"source_config\": {\"direct_source_config\": {}, "
                + "\"kafka_stream_config\": {\"subscription_mode\": {\"subscribe\": \"t\"}}}, \"schema_config\": "
                + "{\"direct_schemas\": {\"payload_schema\": {\"json_schema\": \"{}\"}}}, \"ingestion_config\": "
                + "{\"ingestion_destination\": {\"delta_table_name\": \"main.v.e_ingestion\"}}}";
        as(ALICE).body(body).post(STREAMS).then().statusCode(400).body("message", containsString("source_config"));
        String mtls = body.replace(", \"kafka_stream_config\": {\"subscription_mode\": {\"subscribe\": \"t\"}}", "")
                .replace("\"schema_config\"", "\"connection_config\": {\"direct_mtls_config\": "
                        + "{\"bootstrap_servers\": \"b:9093\"}}, \"schema_config\"");
        as(ALICE).body(mtls).post(STREAMS).then().statusCode(400)
                .body("message", containsString("connection_config.direct_mtls_config"));
    }

    @Test
    void aKafkaStreamTakesNoPushes() {
        String connection = unique("kafka");
        as(ALICE).body("{\"name\": \"" + connection + "\", \"connection_type\": \"KAFKA\", \"options\": "
                + "{\"bootstrap_servers\": \"" + org.eclipse.microprofile.config.ConfigProvider.getConfig()
                        .getValue("kafka.bootstrap.servers", String.class) + "\"}}")
                .post("/api/2.0/connections").then().statusCode(200);
        String name = "main." + unique("k") + ".orders";
        as(ALICE).body(io.tributary.testing.StreamRequests.valid(name, connection, unique("t")).toString())
                .post(STREAMS).then().statusCode(200);
        push(ALICE, name, jsonPush("p", 0, 1, 0)).then().statusCode(400)
                .body("message", containsString("direct_source_config"));
        as(ALICE).get(STREAMS + "/" + name).then().statusCode(200)
                .body("ingestion_status", org.hamcrest.Matchers.not(org.hamcrest.Matchers.hasKey("producers")));
    }

    /**
     * Many producers push over HTTP, each batch twice at once (a retry racing the original), while a second writer
     * process (its own group commit and ingester over the same table, as another server would have) pushes the same
     * batches again: the table ends with exactly the pushed rows, and group commit made far fewer commits than pushes.
     */
    @Test
    void manyProducersAndASecondWriterEndWithExactlyThePushedRows() throws Throwable {
        Created s = create("json_schema", JSON_SCHEMA);
        PipelineSpec spec = VertxContextSupport.subscribeAndAwait(() -> directory.byId(s.id())).orElseThrow();
        GroupCommit otherServer = new GroupCommit("other", () -> OpenedIngester.open(tables, spec,
                writeLocks.forStream(spec.streamId(), spec.tableLocation())),
                new GroupCommit.Limits(Duration.ofMillis(5), 100_000, 64 << 20, 256 << 20));
        PushBodies bodies = new PushBodies(spec.keySchema(), spec.valueSchema(), spec.rescueUndecodable());
        int producers = 16;
        int batches = 8;
        int perBatch = 25;
        ExecutorService pool = Executors.newFixedThreadPool(producers * 2);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                String producer = "p-" + p;
                done.add(pool.submit(() -> {
                    for (int seq = 0; seq < batches; seq++) {
                        String body = jsonPush(producer, seq, perBatch, seq * perBatch);
                        Future<Response> retry = pool.submit(() -> push(ALICE, s.name(), body));
                        PushOutcome other = otherServer.submit(bodies.read("application/json",
                                body.getBytes(StandardCharsets.UTF_8), 0)).get(60, TimeUnit.SECONDS);
                        Response mine = push(ALICE, s.name(), body);
                        mine.then().statusCode(200).body("committed_sequence", equalTo(seq));
                        retry.get(60, TimeUnit.SECONDS).then().statusCode(200);
                        assertThat(other).isInstanceOf(PushOutcome.Committed.class);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(300, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        List<Map<String, Object>> rows = IndependentReader.rows(s.location());
        Set<Object> ids = new HashSet<>();
        rows.forEach(r -> ids.add(((Map<?, ?>) r.get("value")).get("id")));
        assertThat(rows).hasSize(producers * batches * perBatch);
        assertThat(ids).hasSize(producers * batches * perBatch);
        long version = IndependentReader.version(s.location());
        assertThat(version).as("group commit: fewer commits than the %d batches", producers * batches)
                .isLessThan(producers * batches);
    }

    /**
     * Producers keep pushing, over HTTP and through a second writer the delete does not know of, while the stream is
     * deleted: once DELETE returns, nothing is under the table's location and nothing lands there later.
     */
    @Test
    void aPushRacingADeleteWritesNothingAfterTheDeleteReturns() throws Throwable {
        Created s = create("json_schema", JSON_SCHEMA);
        PipelineSpec spec = VertxContextSupport.subscribeAndAwait(() -> directory.byId(s.id())).orElseThrow();
        GroupCommit otherServer = new GroupCommit("other", () -> OpenedIngester.open(tables, spec,
                writeLocks.forStream(spec.streamId(), spec.tableLocation())),
                new GroupCommit.Limits(Duration.ofMillis(5), 100_000, 64 << 20, 256 << 20));
        PushBodies bodies = new PushBodies(spec.keySchema(), spec.valueSchema(), spec.rescueUndecodable());
        AtomicBoolean stop = new AtomicBoolean();
        ConcurrentLinkedQueue<Integer> statuses = new ConcurrentLinkedQueue<>();
        ExecutorService pool = Executors.newFixedThreadPool(6);
        List<Future<?>> running = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            String producer = "http-" + p;
            running.add(pool.submit(() -> {
                for (int seq = 0; !stop.get(); ) {
                    int status = push(ALICE, s.name(), jsonPush(producer, seq, 50, seq * 50)).statusCode();
                    statuses.add(status);
                    if (status == 200) {
                        seq++;
                    }
                }
                return null;
            }));
            String other = "other-" + p;
            running.add(pool.submit(() -> {
                for (int seq = 0; !stop.get(); seq++) {
                    try {
                        otherServer.submit(bodies.read("application/json",
                                jsonPush(other, seq, 50, seq * 50).getBytes(StandardCharsets.UTF_8), 0))
                                .get(60, TimeUnit.SECONDS);
                    } catch (java.util.concurrent.ExecutionException e) {
                        // Fenced, or its table already gone when it opened it again: nothing of it was written.
                        assertThat(e.getCause()).isInstanceOfAny(io.tributary.ingest.StreamDeletedException.class,
                                io.tributary.delta.NoSuchTableException.class);
                        return null;
                    }
                }
                return null;
            }));
        }
        try {
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60))
                    .until(() -> IndependentReader.rows(s.location()).size() >= 300);
            as(ALICE).delete(STREAMS + "/" + s.name()).then().statusCode(200);
            assertThat(TestFiles.under(s.location())).as("nothing under the location once DELETE returned").isEmpty();
            Thread.sleep(2000);
            assertThat(TestFiles.under(s.location())).as("nothing lands there later").isEmpty();
            assertThat(tables.exists(s.location())).isFalse();
        } finally {
            stop.set(true);
            for (Future<?> f : running) {
                f.get(60, TimeUnit.SECONDS);
            }
            pool.shutdownNow();
        }
        assertThat(statuses).contains(200, 404);
        assertThat(statuses).allMatch(code -> code == 200 || code == 404);
    }

    private static byte[] avro(Schema schema, GenericRecord datum) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(schema).write(datum, encoder);
        encoder.flush();
        return out.toByteArray();
    }
}
