package io.tributary.lambda.ingest;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;

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
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The ingest function end to end through Quarkus's mock event server: a stream created by the registry against the
 * real test broker (start positions from its end offsets), records produced to it, polled back from the broker from
 * the beginning as the event source mapping does, posted as an MSK or self-managed Kafka event invoking the stream's
 * alias, and read back from the Delta table with Delta Kernel. The mapping redelivers whole batches: a batch posted
 * twice lands once, and a batch overlapping what the table has adds only the new records.
 *
 * <p>{@link IngestHandlerS3Test} runs the same cases with the warehouse on S3 (S3Proxy).
 *
 * <p>{@link InvokedFunctionEventServer} is registered for every test of the ingest build (restrictToAnnotatedClass
 * is false): events go to it, and the function's poll loop reads them from it.
 */
@Tag("quarkus")
@QuarkusTest
@QuarkusTestResource(InvokedFunctionEventServer.Resource.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IngestHandlerTest {
    static final Principal ROOT = new Principal("root", true);
    static final String FUNCTION = "arn:aws:lambda:eu-west-1:123456789012:function:tributary-ingest";
    // Record timestamps near now: the broker's retention would delete records older than a week while a test runs.
    static final long NOW = System.currentTimeMillis();
    static final String PAYLOAD_SCHEMA = "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"},"
            + "\"amount\":{\"type\":\"number\"}}}";

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

    @BeforeAll
    void connection() throws Throwable {
        connection = "handler-kafka-" + Long.toString(System.nanoTime(), 36);
        VertxContextSupport.subscribeAndAwait(() -> connections.create(ROOT, new ConnectionSpec(connection, "KAFKA",
                new ConnectionSpec.Options(bootstrap, null, null, null, null, null, null, null, null), null)));
    }

    @Test
    void anMskBatchPolledFromTheBrokerLandsFromTheStartPositionsAndOnceWhenRedelivered() throws Throwable {
        String topic = topic(2);
        List<RecordMetadata> before = produce(topic, List.of(
                new ProducerRecord<>(topic, 0, NOW, "early", "{\"id\":\"e0\",\"amount\":1}"),
                new ProducerRecord<>(topic, 1, NOW + 1, "early", "{\"id\":\"e1\",\"amount\":1}")));
        Stream stream = create("msk", "{\"subscribe\": \"" + topic + "\"}");
        List<RecordMetadata> after = produce(topic, List.of(
                new ProducerRecord<>(topic, 0, NOW + 1000, "k1", "{\"id\":\"a1\",\"amount\":1.5}"),
                new ProducerRecord<>(topic, 0, NOW + 1001, "k2", "not json"),
                new ProducerRecord<>(topic, 1, NOW + 1002, null, "{\"id\":\"b1\",\"amount\":2}"),
                new ProducerRecord<>(topic, 1, NOW + 1003, "k4", (String) null)));
        List<ConsumerRecord<byte[], byte[]>> polled = IngestFixtures.readAll(bootstrap, topic);
        assertThat(polled).hasSize(6);
        String event = IngestFixtures.mskEventOf(polled);

        Invocation first = invoke(stream.alias(), event).ok();
        assertThat(first.get("stream_id")).isEqualTo(stream.id());
        assertThat(first.get("records")).isEqualTo(6);
        assertThat(first.get("rows_added")).isEqualTo(4);
        assertThat(first.get("table_version")).isEqualTo(1);
        List<List<Object>> expected = List.of(
                row("k1", "a1|1.5", after.get(0), topic),
                row("k2", null, after.get(1), topic),
                row(null, "b1|2.0", after.get(2), topic),
                row("k4", null, after.get(3), topic));
        assertThat(rows(stream)).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(before).extracting(RecordMetadata::offset).containsOnly(0L);

        Invocation again = invoke(stream.alias(), event).ok();
        assertThat(again.get("records")).isEqualTo(6);
        assertThat(again.get("rows_added")).isEqualTo(0);
        assertThat(again.get("table_version")).isNull();
        assertThat(rows(stream)).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void aSelfManagedBatchLandsOnceAndAnOverlappingOneAddsOnlyWhatIsNew() throws Throwable {
        String topic = topic(1);
        Stream stream = create("selfmanaged", "{\"subscribe\": \"" + topic + "\"}");
        List<RecordMetadata> first = produce(topic, List.of(
                new ProducerRecord<>(topic, 0, NOW + 2000, "s1", "{\"id\":\"s1\",\"amount\":10}"),
                new ProducerRecord<>(topic, 0, NOW + 2001, "s2", "{\"id\":\"s2\",\"amount\":20}")));
        String firstBatch = IngestFixtures.selfManagedEventOf(bootstrap, IngestFixtures.readAll(bootstrap, topic));

        assertThat(invoke(stream.alias(), firstBatch).ok().get("rows_added")).isEqualTo(2);
        Invocation again = invoke(stream.alias(), firstBatch).ok();
        assertThat(again.get("rows_added")).isEqualTo(0);
        assertThat(again.get("table_version")).isNull();

        List<RecordMetadata> second = produce(topic, List.of(
                new ProducerRecord<>(topic, 0, NOW + 2002, "s3", "{\"id\":\"s3\",\"amount\":30}")));
        // The mapping may redeliver from an older position: this batch holds s1 and s2 again, and s3.
        String overlapping = IngestFixtures.selfManagedEventOf(bootstrap, IngestFixtures.readAll(bootstrap, topic));
        Invocation third = invoke(stream.alias(), overlapping).ok();
        assertThat(third.get("records")).isEqualTo(3);
        assertThat(third.get("rows_added")).isEqualTo(1);
        assertThat(third.get("table_version")).isEqualTo(2);

        assertThat(rows(stream)).containsExactlyInAnyOrder(
                row("s1", "s1|10.0", first.get(0), topic),
                row("s2", "s2|20.0", first.get(1), topic),
                row("s3", "s3|30.0", second.get(0), topic));
    }

    @Test
    void withRescueOnAnUndecodableValueLandsWithItsBytesAndErrorInTheSameCommitOnce() throws Throwable {
        String topic = topic(1);
        Stream stream = create("rescue", "{\"subscribe\": \"" + topic + "\"}", true);
        List<RecordMetadata> sent = produce(topic, List.of(
                new ProducerRecord<>(topic, 0, NOW + 3000, "r1", "{\"id\":\"r1\",\"amount\":1}"),
                new ProducerRecord<>(topic, 0, NOW + 3001, "r2", "{\"id\":\"r2\",\"amount\":\"two\"}"),
                new ProducerRecord<>(topic, 0, NOW + 3002, "r3", "not json")));
        String event = IngestFixtures.mskEventOf(IngestFixtures.readAll(bootstrap, topic));

        Invocation first = invoke(stream.alias(), event).ok();
        assertThat(first.get("rows_added")).isEqualTo(3);
        assertThat(first.get("table_version")).isEqualTo(1);
        assertThat(invoke(stream.alias(), event).ok().get("rows_added")).as("redelivered").isEqualTo(0);

        Map<Long, Map<String, Object>> byOffset = new java.util.TreeMap<>();
        try (TableRows rows = tables.read(stream.location())) {
            rows.forEachRemaining(r -> byOffset.put((Long) r.get("kafka_offset"), r));
        }
        assertThat(byOffset).hasSize(3);
        assertThat(byOffset.get(sent.get(0).offset()).get("_rescued_data")).isNull();
        for (int i = 1; i < 3; i++) {
            Map<String, Object> row = byOffset.get(sent.get(i).offset());
            assertThat(row.get("value")).isNull();
            Map<?, ?> rescued = (Map<?, ?>) row.get("_rescued_data");
            assertThat(rescued).isNotNull();
            assertThat(new String((byte[]) rescued.get("value"), StandardCharsets.UTF_8))
                    .isEqualTo(i == 1 ? "{\"id\":\"r2\",\"amount\":\"two\"}" : "not json");
            assertThat(new String((byte[]) rescued.get("key"), StandardCharsets.UTF_8)).isEqualTo("r" + (i + 1));
            assertThat(rescued.get("side")).isEqualTo("value");
            assertThat((String) rescued.get("error")).isNotBlank();
        }
        assertThat(io.tributary.ingest.RescuedRecords.count(tables.open(stream.location()))).isEqualTo(2);
    }

    @Test
    void withoutAStreamAliasTheBatchFailsSoTheMappingRedeliversIt() {
        String event = IngestFixtures.mskEvent(List.of(new IngestFixtures.Rec("tx", 0, 0, 1L, "k", "{\"id\":\"a\"}")));
        given().contentType("application/json").body(event)
                .when().post(invokeUrl)
                .then().statusCode(500)
                .body(containsString("cannot tell which stream"));
        Invocation unqualified = invoke(FUNCTION + ":$LATEST", event);
        assertThat(unqualified.status()).isEqualTo(500);
        assertThat(unqualified.body()).contains("must be invoked through a stream alias");
    }

    /** What the event server answered: the handler's JSON result (200) or Lambda's error object (500). */
    record Invocation(int status, String body) {
        Invocation ok() {
            assertThat(status).as(body).isEqualTo(200);
            return this;
        }

        Object get(String field) {
            return JsonPath.from(body).get(field);
        }
    }

    Invocation invoke(String invokedArn, String event) {
        Response response = given().header(InvokedFunctionEventServer.INVOKED_ARN, invokedArn)
                .contentType("application/json").body(event).when().post(invokeUrl);
        return new Invocation(response.statusCode(), response.asString());
    }

    record Stream(String id, String location) {
        String alias() {
            return FUNCTION + ":" + StreamAlias.PREFIX + id;
        }
    }

    /** Creates the stream the way stream-api does (the registry's create: start positions from the broker). */
    Stream create(String schema, String subscriptionMode) throws Throwable {
        return create(schema, subscriptionMode, false);
    }

    Stream create(String schema, String subscriptionMode, boolean rescue) throws Throwable {
        String schemaName = schema + "_" + Long.toString(System.nanoTime(), 36);
        String name = "main." + schemaName + ".tx";
        String body = "{\"name\": \"" + name + "\","
                + "\"source_config\": {\"kafka_stream_config\": {\"subscription_mode\": " + subscriptionMode + "}},"
                + "\"connection_config\": {\"uc_connection_name\": \"" + connection + "\"},"
                + "\"schema_config\": {\"direct_schemas\": {\"payload_schema\": {\"json_schema\": "
                + new ObjectMapper().writeValueAsString(PAYLOAD_SCHEMA) + "}}},"
                + "\"ingestion_config\": {\"ingestion_destination\": {\"delta_table_name\": \"" + name
                + "_ingestion\"}" + (rescue ? ", \"rescue_undecodable\": true" : "") + "}}";
        JsonNode created = new ObjectMapper().readTree(VertxContextSupport.subscribeAndAwait(
                () -> streams.create(ROOT, RegistryJson.parse(body, StreamDefinition.class))).utf8());
        return new Stream(created.get("stream_id").asText(), tables.defaultLocation("main", schemaName, "tx_ingestion"));
    }

    String topic(int partitions) throws Exception {
        String topic = "handler-" + Long.toString(System.nanoTime(), 36);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
        }
        return topic;
    }

    List<RecordMetadata> produce(String topic, List<ProducerRecord<String, String>> records) throws Exception {
        List<RecordMetadata> sent = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(
                Map.<String, Object>of("bootstrap.servers", bootstrap), new StringSerializer(), new StringSerializer())) {
            for (ProducerRecord<String, String> r : records) {
                ProducerRecord<String, String> withHeader = new ProducerRecord<>(r.topic(), r.partition(), r.timestamp(),
                        r.key(), r.value());
                withHeader.headers().add("trace-id", ("t-" + r.key()).getBytes(StandardCharsets.UTF_8));
                sent.add(producer.send(withHeader).get());
            }
        }
        return sent;
    }

    private static List<Object> row(String key, String value, RecordMetadata produced, String topic) {
        return Arrays.asList(key, value, Instant.ofEpochMilli(produced.timestamp()), "stream", topic,
                produced.partition(), produced.offset());
    }

    /** Rows in SPEC column order (Delta Kernel's scan), the value struct flattened to "id|amount". */
    List<List<Object>> rows(Stream stream) {
        List<List<Object>> out = new ArrayList<>();
        try (TableRows rows = tables.read(stream.location())) {
            while (rows.hasNext()) {
                Map<String, Object> row = rows.next();
                @SuppressWarnings("unchecked")
                Map<String, Object> value = (Map<String, Object>) row.get("value");
                out.add(Arrays.asList(row.get("key"), value == null ? null : value.get("id") + "|" + value.get("amount"),
                        row.get("stream_record_timestamp"), row.get("record_source"), row.get("kafka_topic"),
                        row.get("kafka_partition"), row.get("kafka_offset")));
            }
        }
        return out;
    }
}
