package io.tributary.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** Create-stream request bodies for tests, edited by JSON path. */
public final class StreamRequests {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private StreamRequests() {}

    /** A valid request: topics subscribed through the named connection, a JSON payload schema, no backfill. */
    public static ObjectNode valid(String streamName, String connection, String topics) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("name", streamName);
        root.putObject("source_config").putObject("kafka_stream_config").putObject("subscription_mode")
                .put("subscribe", topics);
        root.putObject("connection_config").put("uc_connection_name", connection);
        ObjectNode direct = root.putObject("schema_config").putObject("direct_schemas");
        direct.putObject("payload_schema").put("json_schema",
                "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"},\"amount\":{\"type\":\"number\"}}}");
        ObjectNode ingestion = root.putObject("ingestion_config");
        ingestion.putObject("ingestion_destination").put("delta_table_name", streamName + "_ingestion");
        return root;
    }

    /** Sets (or with null, removes) the value at a dotted path, creating objects on the way. */
    public static ObjectNode with(ObjectNode root, String path, Object value) {
        String[] parts = path.split("\\.");
        ObjectNode node = root;
        for (int i = 0; i < parts.length - 1; i++) {
            JsonNode next = node.get(parts[i]);
            node = next instanceof ObjectNode o ? o : node.putObject(parts[i]);
        }
        String last = parts[parts.length - 1];
        if (value == null) {
            node.remove(last);
        } else if (value instanceof JsonNode j) {
            node.set(last, j);
        } else {
            node.set(last, MAPPER.valueToTree(value));
        }
        return root;
    }

    public static JsonNode json(String text) {
        try {
            return MAPPER.readTree(text);
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }
}
