package io.tributary.lambda.ingest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tributary.ingest.MicroBatch;
import io.tributary.ingest.SourceRecord;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The event a Kafka event source mapping sends, both shapes: Amazon MSK ({@code "eventSource": "aws:kafka"}, with
 * {@code eventSourceArn}) and self-managed Kafka ({@code "eventSource": "SelfManagedKafka"}). Records arrive in a map
 * keyed {@code <topic>-<partition>}, keys and values base64-encoded. Parsed from the JSON tree rather than bound to
 * classes, so the native image needs no reflection for it.
 *
 * <p>Record headers are read past: the ingestion table has no column for them (SPEC 4).
 */
record KafkaEvent(String eventSource, String eventSourceArn, String bootstrapServers, List<SourceRecord> records) {

    static final String MSK = "aws:kafka";
    static final String SELF_MANAGED = "SelfManagedKafka";

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Parses an event; a malformed one fails with the JSON path of the bad field, never with record contents. */
    static KafkaEvent parse(byte[] json) {
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new InvalidKafkaEventException("the event is not JSON (" + e.getOriginalMessage() + ")");
        } catch (java.io.IOException e) {
            throw new InvalidKafkaEventException("the event could not be read: " + e.getMessage());
        }
        if (root == null || !root.isObject()) {
            throw new InvalidKafkaEventException("the event must be a JSON object with eventSource and records");
        }
        String eventSource = text(root, "eventSource", "eventSource");
        if (!MSK.equals(eventSource) && !SELF_MANAGED.equals(eventSource)) {
            throw new InvalidKafkaEventException("eventSource is '" + eventSource + "'; expected '" + MSK + "' or '"
                    + SELF_MANAGED + "': only Kafka event source mappings may invoke this function");
        }
        String eventSourceArn = optionalText(root, "eventSourceArn");
        if (MSK.equals(eventSource) && eventSourceArn == null) {
            throw new InvalidKafkaEventException("eventSourceArn is missing; an MSK event names its cluster ARN");
        }
        return new KafkaEvent(eventSource, eventSourceArn, optionalText(root, "bootstrapServers"), records(root));
    }

    /**
     * The records as one micro-batch (the event is exactly what the mapping delivers at once), keeping only those
     * {@code included} accepts.
     */
    MicroBatch microBatch(Predicate<SourceRecord> included) {
        MicroBatch.Builder batch = MicroBatch.builder();
        for (SourceRecord record : records) {
            if (included.test(record)) {
                batch.add(record);
            }
        }
        return batch.build();
    }

    private static List<SourceRecord> records(JsonNode root) {
        JsonNode byPartition = root.get("records");
        if (byPartition == null || !byPartition.isObject()) {
            throw new InvalidKafkaEventException("records must be an object keyed by '<topic>-<partition>'");
        }
        List<SourceRecord> records = new ArrayList<>();
        for (Map.Entry<String, JsonNode> entry : byPartition.properties()) {
            String path = "records['" + entry.getKey() + "']";
            if (!entry.getValue().isArray()) {
                throw new InvalidKafkaEventException(path + " must be an array of records");
            }
            for (int i = 0; i < entry.getValue().size(); i++) {
                SourceRecord record = record(entry.getValue().get(i), path + "[" + i + "]");
                if (!entry.getKey().equals(record.topic() + "-" + record.partition())) {
                    throw new InvalidKafkaEventException(path + "[" + i + "] is from " + record.topic() + "-"
                            + record.partition() + " but listed under '" + entry.getKey() + "'");
                }
                records.add(record);
            }
        }
        // Delivery order within a partition is offset order; make it so regardless of how the JSON listed them.
        records.sort(Comparator.comparing(SourceRecord::topic)
                .thenComparingInt(SourceRecord::partition)
                .thenComparingLong(SourceRecord::offset));
        return List.copyOf(records);
    }

    private static SourceRecord record(JsonNode node, String path) {
        if (node == null || !node.isObject()) {
            throw new InvalidKafkaEventException(path + " must be an object");
        }
        String topic = text(node, "topic", path + ".topic");
        long partition = integer(node, "partition", path);
        if (partition < 0 || partition > Integer.MAX_VALUE) {
            throw new InvalidKafkaEventException(path + ".partition is " + partition + "; expected 0 or more");
        }
        long offset = integer(node, "offset", path);
        if (offset < 0) {
            throw new InvalidKafkaEventException(path + ".offset is " + offset + "; expected 0 or more");
        }
        return new SourceRecord(topic, (int) partition, offset, integer(node, "timestamp", path),
                base64(node, "key", path), base64(node, "value", path));
    }

    private static String text(JsonNode node, String field, String path) {
        JsonNode value = node.get(field);
        if (value == null || !value.isTextual() || value.asText().isEmpty()) {
            throw new InvalidKafkaEventException(path + " must be a non-empty string");
        }
        return value.asText();
    }

    private static String optionalText(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || !value.isTextual() ? null : value.asText();
    }

    private static long integer(JsonNode node, String field, String path) {
        JsonNode value = node.get(field);
        if (value == null || !value.canConvertToExactIntegral() || !value.canConvertToLong()) {
            throw new InvalidKafkaEventException(path + "." + field + " must be an integer");
        }
        return value.asLong();
    }

    private static byte[] base64(JsonNode node, String field, String path) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual()) {
            throw new InvalidKafkaEventException(path + "." + field + " must be a base64 string or absent");
        }
        try {
            return Base64.getDecoder().decode(value.asText());
        } catch (IllegalArgumentException e) {
            throw new InvalidKafkaEventException(path + "." + field + " is not valid base64");
        }
    }
}
