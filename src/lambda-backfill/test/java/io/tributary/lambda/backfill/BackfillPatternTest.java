package io.tributary.lambda.backfill;

import io.tributary.lambda.RegisteredStreams;
import io.tributary.lambda.mappings.FakeAwsControlPlane;
import io.tributary.lambda.mappings.FakeLambda;
import io.tributary.lambda.mappings.IngestMappings;
import io.tributary.lambda.mappings.MappingRecords;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.startsWith;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.TableRows;
import io.tributary.delta.Tables;
import io.tributary.ingest.CommitResult;
import io.tributary.ingest.MicroBatch;
import io.tributary.ingest.OpenedIngester;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.SourceRecord;
import io.tributary.ingest.StartPositions;
import io.tributary.ingest.Subscription;
import io.tributary.registry.directory.StreamDirectory;
import io.tributary.registry.request.ConnectionSpec;
import io.tributary.registry.service.ConnectionService;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.lambda.model.CreateEventSourceMappingRequest;
import software.amazon.awssdk.services.lambda.model.EventSourcePosition;

/**
 * subscribe_pattern on AWS, the schedule's share: an EventBridge scheduled event posted to Quarkus's mock event server
 * gives a topic that started to match after create a mapping of its own and removes the mapping of a deleted topic,
 * against the real test broker and registry (only the Lambda control plane is a fake). A stream whose cluster cannot
 * be reached is reported and holds up no other. What the new mapping delivers from the topic's beginning then lands
 * through the ingest core exactly once, read back with Delta Kernel.
 */
@Tag("quarkus")
@QuarkusTest
@QuarkusTestResource(FakeAwsControlPlane.class)
class BackfillPatternTest {

    /** What an EventBridge rule delivers on its schedule (the Scheduler target sends function-configs' input). */
    private static final String SCHEDULED_EVENT = """
            {"version": "0", "id": "53dc4d37-cffa-4f76-80c9-8b7d4a4d2eaa", "detail-type": "Scheduled Event",
             "source": "aws.events", "account": "123456789012", "time": "2026-11-30T12:00:00Z", "region": "eu-west-1",
             "resources": ["arn:aws:events:eu-west-1:123456789012:rule/tributary-backfill"], "detail": {}}""";

    @Inject
    StreamDirectory directory;
    @Inject
    ConnectionService connections;
    @Inject
    Tables tables;
    @Inject
    IngestMappings mappings;
    @Inject
    MappingRecords records;
    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;

    @Test
    void theScheduleMapsATopicThatStartsToMatchUnmapsADeletedOneAndAnUnreachableClusterFailsAlone()
            throws Throwable {
        String prefix = "bfp-" + Long.toString(System.nanoTime(), 36);
        String live = prefix + "-kafka";
        VertxContextSupport.subscribeAndAwait(() -> connections.create(RegisteredStreams.ROOT, new ConnectionSpec(live,
                "KAFKA", new ConnectionSpec.Options(bootstrap, null, null, null, null, null, null, null, null), null)));
        String dead = prefix + "-dead-kafka";
        RegisteredStreams.connection(connections, dead); // 127.0.0.1:9: nothing listens
        createTopic(prefix + "-old", 1);
        produce(prefix + "-old", "before-create", "before-create");

        // Created as stream-api creates it: start positions from the broker, then one mapping per matching topic.
        PipelineSpec spec = stream(live, prefix.replace('-', '_'), prefix + "-.*");
        List<MappingRecords.Mapping> atCreate = mappings.create(spec);
        records.record(spec.streamId(), atCreate);
        assertThat(atCreate).extracting(MappingRecords.Mapping::topic).containsExactly(prefix + "-old");
        // A second pattern stream, created while its cluster was reachable and matched nothing; now it is down. Its
        // name sorts first, so the run meets it before the other stream.
        PipelineSpec unreachable = stream(dead, "a_" + prefix.replace('-', '_'), "anything-.*");
        records.record(unreachable.streamId(), List.of());

        // After create: a matching topic appears (and is written to before the schedule runs), the old one is deleted.
        String fresh = prefix + "-fresh";
        createTopic(fresh, 2);
        createTopic(prefix + "_nomatch", 1);
        List<RecordMetadata> produced = produce(fresh, "k1", "{\"id\":\"a\",\"amount\":1}", "k2",
                "{\"id\":\"b\",\"amount\":2}", "k3", "not json");
        deleteTopic(prefix + "-old");

        given().contentType("application/json").accept("application/json").body(SCHEDULED_EVENT)
                .when().post()
                .then().statusCode(200)
                .body("pattern_streams_checked", equalTo(2))
                .body("mappings_added", equalTo(1))
                .body("mappings_removed", equalTo(1))
                .body("pattern_errors", hasSize(1))
                .body("pattern_errors[0]", startsWith("stream " + unreachable.streamId() + ": "))
                .body("pattern_errors[0]", containsString("Kafka did not answer in time"))
                .body("backfill_errors", equalTo(0));

        List<MappingRecords.Mapping> now = records.mappings(spec.streamId());
        assertThat(now).extracting(MappingRecords.Mapping::topic).containsExactly(fresh);
        CreateEventSourceMappingRequest request = FakeAwsControlPlane.LAMBDA.request(now.get(0).id());
        assertThat(request.topics()).containsExactly(fresh);
        assertThat(request.functionName()).isEqualTo(FakeLambda.INGEST + ":stream-" + spec.streamId());
        assertThat(request.startingPosition()).isEqualTo(EventSourcePosition.TRIM_HORIZON);
        assertThat(FakeAwsControlPlane.LAMBDA.deleted).contains(atCreate.get(0).id());
        assertThat(records.mappings(unreachable.streamId())).isEmpty();

        // The next run finds nothing to change: no second mapping for the same topic.
        given().contentType("application/json").accept("application/json").body(SCHEDULED_EVENT)
                .when().post()
                .then().statusCode(200)
                .body("mappings_added", equalTo(0))
                .body("mappings_removed", equalTo(0))
                .body("pattern_errors", contains(startsWith("stream " + unreachable.streamId())));
        assertThat(records.mappings(spec.streamId())).isEqualTo(now);

        // The new mapping starts at TRIM_HORIZON: its first batch is the topic from its beginning, including what was
        // produced before the mapping existed. The table has no position for the new partitions, so the core takes
        // every record; a redelivery adds nothing.
        MicroBatch batch = batch(readAll(fresh));
        assertThat(batch.size()).isEqualTo(3);
        Optional<CommitResult> first = OpenedIngester.open(tables, spec).ingester().ingest(batch);
        assertThat(first).isPresent();
        assertThat(first.get().rows()).isEqualTo(3);
        assertThat(OpenedIngester.open(tables, spec).ingester().ingest(batch)).isEmpty();
        List<List<Object>> expected = new ArrayList<>();
        Map<PartitionKey, Long> next = new HashMap<>();
        for (int i = 0; i < produced.size(); i++) {
            RecordMetadata m = produced.get(i);
            expected.add(Arrays.asList("k" + (i + 1), fresh, m.partition(), m.offset(), "stream"));
            next.merge(new PartitionKey(fresh, m.partition()), m.offset() + 1, Math::max);
        }
        assertThat(rows(spec.tableLocation())).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(tables.open(spec.tableLocation()).positions()).containsAllEntriesOf(next);

        // A delete (stream-api) marks the stream first: from then on the schedule leaves its mappings alone.
        assertThat(records.beginStop(spec.streamId())).isEqualTo(now);
        assertThat(records.patternStreams()).doesNotContain(spec.streamId()).contains(unreachable.streamId());
        assertThat(records.update(spec.streamId(), current -> {
            throw new AssertionError("refreshed a stopping stream");
        })).isEmpty();
        records.forget(spec.streamId());
        assertThat(records.mappings(spec.streamId())).isEmpty();
    }

    private PipelineSpec stream(String connection, String schema, String pattern) throws Throwable {
        String name = "main." + schema + ".tx";
        String definition = "{\"name\": \"" + name + "\","
                + "\"source_config\": {\"kafka_stream_config\": {\"subscription_mode\": {\"subscribe_pattern\": \""
                + pattern + "\"}}},"
                + "\"connection_config\": {\"uc_connection_name\": \"" + connection + "\"},"
                + "\"schema_config\": {\"direct_schemas\": {\"payload_schema\": {\"json_schema\": "
                + "\"{\\\"type\\\": \\\"object\\\", "
                + "\\\"properties\\\": {\\\"id\\\": {\\\"type\\\": \\\"string\\\"}}}\"}}},"
                + "\"ingestion_config\": {\"ingestion_destination\": {\"delta_table_name\": \"" + name
                + "_ingestion\"}}}";
        Map<PartitionKey, Long> positions = connection.endsWith("dead-kafka") ? Map.<PartitionKey, Long>of()
                : StartPositions.capture(Map.of("bootstrap.servers", bootstrap), new Subscription.Pattern(pattern),
                        Duration.ofSeconds(30));
        return RegisteredStreams.register(directory, tables, connection, schema, "tx", definition, "NOT_CONFIGURED",
                Instant.now().truncatedTo(ChronoUnit.MILLIS), positions);
    }

    private void createTopic(String topic, int partitions) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
    }

    private void deleteTopic(String topic) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
            await("topic " + topic + " deleted").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                    .until(() -> !admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(topic));
        }
    }

    /** Produces key/value pairs, spread over the topic's partitions by key. */
    private List<RecordMetadata> produce(String topic, String... keysAndValues) throws Exception {
        List<RecordMetadata> sent = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(
                Map.<String, Object>of("bootstrap.servers", bootstrap), new StringSerializer(),
                new StringSerializer())) {
            for (int i = 0; i < keysAndValues.length; i += 2) {
                sent.add(producer.send(new ProducerRecord<>(topic, keysAndValues[i], keysAndValues[i + 1])).get());
            }
        }
        return sent;
    }

    /** The topic from the beginning of each partition to its end: what a TRIM_HORIZON mapping delivers first. */
    private List<ConsumerRecord<byte[], byte[]>> readAll(String topic) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of("bootstrap.servers", bootstrap),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            List<ConsumerRecord<byte[], byte[]>> polled = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (partitions.stream().anyMatch(p -> consumer.position(p) < ends.get(p))) {
                assertThat(System.nanoTime()).as("read " + topic + " to " + ends).isLessThan(deadline);
                consumer.poll(Duration.ofMillis(200)).forEach(polled::add);
            }
            return polled;
        }
    }

    private static MicroBatch batch(List<ConsumerRecord<byte[], byte[]>> polled) {
        MicroBatch.Builder batch = MicroBatch.builder();
        for (ConsumerRecord<byte[], byte[]> r : polled) {
            batch.add(new SourceRecord(r.topic(), r.partition(), r.offset(), r.timestamp(), r.key(), r.value()));
        }
        return batch.build();
    }

    /** key, topic, partition, offset, record_source of each row, read with Delta Kernel. */
    private List<List<Object>> rows(String location) {
        List<List<Object>> out = new ArrayList<>();
        try (TableRows rows = tables.read(location)) {
            while (rows.hasNext()) {
                Map<String, Object> row = rows.next();
                out.add(Arrays.asList(row.get("key"), row.get("kafka_topic"), row.get("kafka_partition"),
                        row.get("kafka_offset"), row.get("record_source")));
            }
        }
        return out;
    }
}
