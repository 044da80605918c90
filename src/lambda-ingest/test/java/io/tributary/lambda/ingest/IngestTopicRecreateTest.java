package io.tributary.lambda.ingest;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import io.tributary.delta.TableRows;
import io.tributary.delta.Tables;
import io.tributary.registry.request.ConnectionSpec;
import io.tributary.registry.request.RegistryJson;
import io.tributary.registry.request.StreamDefinition;
import io.tributary.registry.service.ConnectionService;
import io.tributary.registry.service.StreamService;
import io.tributary.security.Principal;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A topic deleted and created again under the same name, on the ingest function (issue 12, item 2): MSK events carry
 * no topic id, and the event source mapping may go on delivering from the old topic's offsets or start the new topic
 * from its beginning. Either way the new topic lands from its first record, once, next to the old topic's rows; the
 * stream's status (read from the table, as stream-api does) says what happened. Batches are polled from the real test
 * broker and posted to the mock event server; the table is read back with Kernel's scan. Also the other way the
 * topic changes under a mapping: offsets deleted by retention before they were delivered are recorded as lost.
 */
@Tag("quarkus")
@QuarkusTest
@QuarkusTestResource(InvokedFunctionEventServer.Resource.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IngestTopicRecreateTest {
    static final Principal ROOT = new Principal("root", true);
    static final String FUNCTION = "arn:aws:lambda:eu-west-1:123456789012:function:tributary-ingest";

    @Inject
    StreamService streams;
    @Inject
    ConnectionService connections;
    @Inject
    Tables tables;
    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;
    @ConfigProperty(name = InvokedFunctionEventServer.URL)
    String invokeUrl;

    private String connection;
    private Admin admin;

    @BeforeAll
    void connection() throws Throwable {
        admin = Admin.create(Map.of("bootstrap.servers", bootstrap));
        connection = "recreate-kafka-" + Long.toString(System.nanoTime(), 36);
        VertxContextSupport.subscribeAndAwait(() -> connections.create(ROOT, new ConnectionSpec(connection, "KAFKA",
                new ConnectionSpec.Options(bootstrap, null, null, null, null, null, null, null, null), null)));
    }

    @AfterAll
    void closeAdmin() {
        admin.close();
    }

    @Test
    void aMappingThatGoesOnFromTheOldOffsetsStillLandsTheNewTopicFromItsFirstRecord() throws Throwable {
        String topic = topic(2);
        String oldId = topicId(topic);
        Stream stream = create(topic);
        List<String> want = new ArrayList<>(produce(topic, 2, 10, "old"));
        assertThat(invoke(stream, IngestFixtures.mskEventOf(IngestFixtures.readAll(bootstrap, topic)))
                .getInt("rows_added")).isEqualTo(20);

        recreate(topic, 2);
        String newId = topicId(topic);
        want.addAll(produce(topic, 2, 150, "new"));
        List<ConsumerRecord<byte[], byte[]>> all = IngestFixtures.readAll(bootstrap, topic);
        // The mapping's consumer kept its place: it delivers the new topic from offset 10 on.
        List<ConsumerRecord<byte[], byte[]>> fromOldOffsets = all.stream().filter(r -> r.offset() >= 10).toList();

        JsonPath outcome = invoke(stream, IngestFixtures.mskEventOf(fromOldOffsets));
        assertThat(outcome.getInt("records")).isEqualTo(280);
        assertThat(outcome.getInt("rows_added")).isEqualTo(300);
        assertThat(rows(stream)).containsExactlyInAnyOrderElementsOf(want);

        // Later the mapping starts over from the new topic's beginning: nothing is added twice.
        assertThat(invoke(stream, IngestFixtures.mskEventOf(all)).getInt("rows_added")).isZero();
        assertThat(rows(stream)).containsExactlyInAnyOrderElementsOf(want);
        assertRecreated(stream, topic, oldId, newId);
    }

    @Test
    void aMappingThatStartsTheNewTopicOverLandsItOnceInSeveralBatches() throws Throwable {
        String topic = topic(1);
        String oldId = topicId(topic);
        Stream stream = create(topic);
        List<String> want = new ArrayList<>(produce(topic, 1, 400, "old"));
        assertThat(invoke(stream, IngestFixtures.mskEventOf(IngestFixtures.readAll(bootstrap, topic)))
                .getInt("rows_added")).isEqualTo(400);

        // 300 records, all below the table's position of 400: the old code dropped every one of them.
        recreate(topic, 1);
        String newId = topicId(topic);
        want.addAll(produce(topic, 1, 300, "new"));
        List<ConsumerRecord<byte[], byte[]>> all = IngestFixtures.readAll(bootstrap, topic);

        assertThat(invoke(stream, IngestFixtures.mskEventOf(all.subList(0, 120))).getInt("rows_added")).isEqualTo(120);
        assertThat(invoke(stream, IngestFixtures.mskEventOf(all.subList(0, 120))).getInt("rows_added")).isZero();
        assertThat(invoke(stream, IngestFixtures.mskEventOf(all.subList(120, 300))).getInt("rows_added"))
                .isEqualTo(180);
        assertThat(rows(stream)).containsExactlyInAnyOrderElementsOf(want);
        assertRecreated(stream, topic, oldId, newId);
    }

    @Test
    void offsetsTheTopicDeletedBeforeTheMappingDeliveredThemAreRecordedAsLost() throws Throwable {
        String topic = topic(1);
        Stream stream = create(topic);
        List<String> want = new ArrayList<>(produce(topic, 1, 10, "early"));
        assertThat(invoke(stream, IngestFixtures.mskEventOf(IngestFixtures.readAll(bootstrap, topic)))
                .getInt("rows_added")).isEqualTo(10);

        // Retention deletes offsets 10 to 49 before the mapping delivers them; it goes on from the log's start.
        List<String> late = produce(topic, 1, 90, "late");
        admin.deleteRecords(Map.of(new org.apache.kafka.common.TopicPartition(topic, 0),
                org.apache.kafka.clients.admin.RecordsToDelete.beforeOffset(50))).all().get();
        want.addAll(late.subList(40, 90));
        assertThat(invoke(stream, IngestFixtures.mskEventOf(IngestFixtures.readAll(bootstrap, topic)))
                .getInt("rows_added")).isEqualTo(50);
        assertThat(rows(stream)).containsExactlyInAnyOrderElementsOf(want);

        // stream-api reads the status from the table: the loss is there for it.
        JsonNode view = new ObjectMapper().readTree(VertxContextSupport.subscribeAndAwait(
                () -> streams.get(ROOT, stream.name())).utf8());
        JsonNode lost = view.path("ingestion_status").path("lost_offsets");
        assertThat(lost.size()).as(view.toString()).isEqualTo(1);
        assertThat(lost.get(0).path("from_offset").asLong()).isEqualTo(10);
        assertThat(lost.get(0).path("to_offset").asLong()).isEqualTo(50);
        assertThat(lost.get(0).path("total_offsets_lost").asLong()).isEqualTo(40);
        assertThat(lost.get(0).path("message").asText()).contains("were deleted from the topic");
    }

    private void assertRecreated(Stream stream, String topic, String oldId, String newId) throws Throwable {
        JsonNode view = new ObjectMapper().readTree(VertxContextSupport.subscribeAndAwait(
                () -> streams.get(ROOT, stream.name())).utf8());
        assertThat(view.path("state").asText()).isEqualTo("RUNNING");
        JsonNode recreations = view.path("ingestion_status").path("topic_recreations");
        assertThat(recreations.size()).as(view.toString()).isEqualTo(1);
        assertThat(recreations.get(0).path("topic").asText()).isEqualTo(topic);
        assertThat(recreations.get(0).path("previous_topic_id").asText()).isEqualTo(oldId);
        assertThat(recreations.get(0).path("topic_id").asText()).isEqualTo(newId);
        assertThat(recreations.get(0).path("message").asText()).contains("was deleted and created again",
                "ingested from its beginning");
    }

    private JsonPath invoke(Stream stream, String event) {
        Response response = given().header(InvokedFunctionEventServer.INVOKED_ARN,
                        FUNCTION + ":" + StreamAlias.PREFIX + stream.id())
                .contentType("application/json").body(event).when().post(invokeUrl);
        assertThat(response.statusCode()).as(response.asString()).isEqualTo(200);
        return JsonPath.from(response.asString());
    }

    record Stream(String id, String name, String location) {}

    private Stream create(String topic) throws Throwable {
        String schemaName = "recreate_" + Long.toString(System.nanoTime(), 36);
        String name = "main." + schemaName + ".tx";
        String body = "{\"name\": \"" + name + "\","
                + "\"source_config\": {\"kafka_stream_config\": {\"subscription_mode\": {\"subscribe\": \"" + topic
                + "\"}}},"
                + "\"connection_config\": {\"uc_connection_name\": \"" + connection + "\"},"
                + "\"schema_config\": {\"direct_schemas\": {\"payload_schema\": {\"json_schema\": "
                + "\"{\\\"type\\\":\\\"string\\\"}\"}}},"
                + "\"ingestion_config\": {\"ingestion_destination\": {\"delta_table_name\": \"" + name
                + "_ingestion\"}}}";
        JsonNode created = new ObjectMapper().readTree(VertxContextSupport.subscribeAndAwait(
                () -> streams.create(ROOT, RegistryJson.parse(body, StreamDefinition.class))).utf8());
        return new Stream(created.get("stream_id").asText(), name,
                tables.defaultLocation("main", schemaName, "tx_ingestion"));
    }

    private String topic(int partitions) throws Exception {
        String topic = "recreate-" + Long.toString(System.nanoTime(), 36);
        admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
        return topic;
    }

    /** The topic's id, once the broker serves the topic's metadata (just after a create it may not yet). */
    private String topicId(String topic) throws Exception {
        long deadline = System.currentTimeMillis() + 30_000;
        while (true) {
            try {
                return admin.describeTopics(List.of(topic)).topicNameValues().get(topic).get().topicId().toString();
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException)
                        || System.currentTimeMillis() > deadline) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    private void recreate(String topic, int partitions) throws Exception {
        admin.deleteTopics(List.of(topic)).all().get();
        long deadline = System.currentTimeMillis() + 60_000;
        while (true) {
            try {
                admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
                return;
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException) || System.currentTimeMillis() > deadline) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
    }

    /** Produces {@code perPartition} JSON strings to each partition; returns "value@partition/offset" of each. */
    private List<String> produce(String topic, int partitions, int perPartition, String tag) throws Exception {
        List<String> rows = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(
                Map.<String, Object>of("bootstrap.servers", bootstrap, "delivery.timeout.ms", "60000"),
                new StringSerializer(), new StringSerializer())) {
            List<java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata>> sent = new ArrayList<>();
            List<String> values = new ArrayList<>();
            for (int i = 0; i < perPartition; i++) {
                for (int p = 0; p < partitions; p++) {
                    String value = tag + "-" + p + "-" + i;
                    values.add(value);
                    sent.add(producer.send(new ProducerRecord<>(topic, p, null, "\"" + value + "\"")));
                }
            }
            for (int i = 0; i < sent.size(); i++) {
                var m = sent.get(i).get(60, java.util.concurrent.TimeUnit.SECONDS);
                rows.add(values.get(i) + "@" + m.partition() + "/" + m.offset());
            }
        }
        return rows;
    }

    /** "value@partition/offset" of every row, by Kernel's scan. */
    private List<String> rows(Stream stream) {
        List<String> out = new ArrayList<>();
        try (TableRows rows = tables.read(stream.location())) {
            while (rows.hasNext()) {
                Map<String, Object> row = rows.next();
                out.add(row.get("value") + "@" + row.get("kafka_partition") + "/" + row.get("kafka_offset"));
            }
        }
        return out;
    }
}
