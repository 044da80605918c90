package io.tributary.lambda.ingest;

import io.tributary.lambda.RegisteredStreams;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.Tables;
import io.tributary.ingest.PipelineSpec;
import io.tributary.registry.directory.StreamDirectory;
import io.tributary.registry.service.ConnectionService;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Streams with a JSON payload schema, and Kafka events as event source mappings send them.
 */
final class IngestFixtures {
    static final String PAYLOAD_SCHEMA =
            "{\\\"type\\\":\\\"object\\\",\\\"properties\\\":{\\\"id\\\":{\\\"type\\\":\\\"string\\\"},"
                    + "\\\"amount\\\":{\\\"type\\\":\\\"number\\\"}}}";

    private static final ObjectMapper JSON = new ObjectMapper();

    private IngestFixtures() {}

    /**
     * A connection to the test broker: the function asks the cluster for the topic ids of every batch (events carry
     * none), so the stream's cluster must answer even when the events' records are made up.
     */
    static void connection(ConnectionService connections, String name, String bootstrapServers) throws Throwable {
        io.quarkus.vertx.VertxContextSupport.subscribeAndAwait(() -> connections.create(RegisteredStreams.ROOT,
                new io.tributary.registry.request.ConnectionSpec(name, "KAFKA", new io.tributary.registry.request.ConnectionSpec.Options(
                        bootstrapServers, null, null, null, null, null, null, null, null), null)));
    }

    /** Registers stream {@code main.<schema>.<table>} with the given subscription_mode JSON; returns its spec. */
    static PipelineSpec stream(StreamDirectory directory, Tables tables, String connection, String schema,
            String table, String subscriptionMode, Map<PartitionKey, Long> startPositions) throws Throwable {
        String name = "main." + schema + "." + table;
        String definition = "{\"name\":\"" + name + "\","
                + "\"source_config\":{\"kafka_stream_config\":{\"subscription_mode\":" + subscriptionMode + "}},"
                + "\"connection_config\":{\"uc_connection_name\":\"" + connection + "\"},"
                + "\"schema_config\":{\"direct_schemas\":{\"payload_schema\":{\"json_schema\":\"" + PAYLOAD_SCHEMA
                + "\"}}},"
                + "\"ingestion_config\":{\"ingestion_destination\":{\"delta_table_name\":\"" + name
                + "_ingestion\"}}}";
        return RegisteredStreams.register(directory, tables, connection, schema, table, definition, "NOT_CONFIGURED",
                Instant.now().truncatedTo(ChronoUnit.MILLIS), startPositions);
    }

    /** One record of an event, with its key and value as text. */
    record Rec(String topic, int partition, long offset, long timestamp, String key, String value) {}

    static String mskEvent(List<Rec> records) {
        return event("{\"eventSource\":\"aws:kafka\",\"eventSourceArn\":\"arn:aws:kafka:eu-west-1:123456789012:"
                + "cluster/demo/751d2973-a626-431c-9d4e-d7975eb44dd7-2\",\"bootstrapServers\":\"b-1.demo:9098\",",
                records);
    }

    static String selfManagedEvent(List<Rec> records) {
        return event("{\"eventSource\":\"SelfManagedKafka\",\"bootstrapServers\":\"b1.example.com:9092\",", records);
    }

    private static String event(String head, List<Rec> records) {
        Map<String, List<String>> byPartition = new LinkedHashMap<>();
        for (Rec r : records) {
            byPartition.computeIfAbsent(r.topic() + "-" + r.partition(), k -> new ArrayList<>()).add(
                    "{\"topic\":\"" + r.topic() + "\",\"partition\":" + r.partition() + ",\"offset\":" + r.offset()
                            + ",\"timestamp\":" + r.timestamp() + ",\"timestampType\":\"CREATE_TIME\""
                            + (r.key() == null ? "" : ",\"key\":\"" + b64(r.key()) + "\"")
                            + ",\"value\":" + (r.value() == null ? "null" : "\"" + b64(r.value()) + "\"")
                            + ",\"headers\":[]}");
        }
        StringBuilder json = new StringBuilder(head).append("\"records\":{");
        String sep = "";
        for (Map.Entry<String, List<String>> e : byPartition.entrySet()) {
            json.append(sep).append('"').append(e.getKey()).append("\":[").append(String.join(",", e.getValue()))
                    .append(']');
            sep = ",";
        }
        return json.append("}}").toString();
    }

    /** An MSK event as the mapping sends what it polled from the broker; {@link #mskEvent(List)}'s framing. */
    static String mskEventOf(List<ConsumerRecord<byte[], byte[]>> polled) {
        ObjectNode event = JSON.createObjectNode().put("eventSource", "aws:kafka")
                .put("eventSourceArn", "arn:aws:kafka:eu-west-1:123456789012:cluster/demo/"
                        + "751d2973-a626-431c-9d4e-d7975eb44dd7-2")
                .put("bootstrapServers", "b-1.demo.abc123.c2.kafka.eu-west-1.amazonaws.com:9098");
        return withRecords(event, polled);
    }

    /** A self-managed Kafka event as the mapping sends what it polled from {@code bootstrapServers}. */
    static String selfManagedEventOf(String bootstrapServers, List<ConsumerRecord<byte[], byte[]>> polled) {
        ObjectNode event = JSON.createObjectNode().put("eventSource", "SelfManagedKafka")
                .put("bootstrapServers", bootstrapServers);
        return withRecords(event, polled);
    }

    /**
     * The {@code records} map of a Kafka event source mapping event: keyed {@code <topic>-<partition>}, key and value
     * base64 (absent when null), headers as a list of one-entry objects whose values are the header's bytes.
     */
    private static String withRecords(ObjectNode event, List<ConsumerRecord<byte[], byte[]>> polled) {
        ObjectNode byPartition = event.putObject("records");
        for (ConsumerRecord<byte[], byte[]> r : polled) {
            String partition = r.topic() + "-" + r.partition();
            ArrayNode records = byPartition.has(partition) ? (ArrayNode) byPartition.get(partition)
                    : byPartition.putArray(partition);
            ObjectNode record = records.addObject().put("topic", r.topic()).put("partition", r.partition())
                    .put("offset", r.offset()).put("timestamp", r.timestamp())
                    .put("timestampType", r.timestampType().name());
            if (r.key() != null) {
                record.put("key", Base64.getEncoder().encodeToString(r.key()));
            }
            if (r.value() != null) {
                record.put("value", Base64.getEncoder().encodeToString(r.value()));
            }
            ArrayNode headers = record.putArray("headers");
            for (Header h : r.headers()) {
                ArrayNode bytes = headers.addObject().putArray(h.key());
                for (byte b : h.value()) {
                    bytes.add(b & 0xff);
                }
            }
        }
        return event.toString();
    }

    /** Every record of the topic, from the beginning of each partition to its end now (what TRIM_HORIZON polls). */
    static List<ConsumerRecord<byte[], byte[]>> readAll(String bootstrap, String topic) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of("bootstrap.servers", bootstrap),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < ends.get(p))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("could not read " + topic + " to its end offsets " + ends);
                }
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
            return records;
        }
    }

    private static String b64(String text) {
        return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }
}
