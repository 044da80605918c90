package io.tributary.runtime.lambda;

import io.tributary.delta.PartitionKey;
import io.tributary.delta.Tables;
import io.tributary.ingest.PipelineSpec;
import io.tributary.registry.ConnectionService;
import io.tributary.registry.StreamDirectory;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Streams with a JSON payload schema, and Kafka events as event source mappings send them.
 */
final class IngestFixtures {
    static final String PAYLOAD_SCHEMA =
            "{\\\"type\\\":\\\"object\\\",\\\"properties\\\":{\\\"id\\\":{\\\"type\\\":\\\"string\\\"},"
                    + "\\\"amount\\\":{\\\"type\\\":\\\"number\\\"}}}";

    private IngestFixtures() {}

    static void connection(ConnectionService connections, String name) throws Throwable {
        RegisteredStreams.connection(connections, name);
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

    private static String b64(String text) {
        return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }
}
