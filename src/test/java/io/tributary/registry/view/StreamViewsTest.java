package io.tributary.registry.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tributary.ingest.IngestionStatus;
import io.tributary.registry.store.StreamRow;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class StreamViewsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String DEFINITION = "{\"name\":\"main.s.tx\",\"source_config\":{\"kafka_stream_config\":"
            + "{\"subscription_mode\":{\"subscribe\":\"tx\"}}},\"connection_config\":{\"uc_connection_name\":\"k\"},"
            + "\"schema_config\":{\"direct_schemas\":{\"payload_schema\":{\"avro_schema\":\"{\\\"type\\\":\\\"long\\\"}\"},"
            + "\"key_schema\":{\"proto_schema\":{\"schema_text\":\"syntax = \\\"proto3\\\"; message K {}\","
            + "\"message_name\":\"K\"}}}},\"ingestion_config\":{\"ingestion_destination\":"
            + "{\"delta_table_name\":\"main.s.tx_ingestion\"}}}";

    @Test
    void aViewIsTheDefinitionWithIdentityAndStatuses() throws Exception {
        StreamRow row = row();
        IngestionStatus status = new IngestionStatus(IngestionStatus.State.RUNNING, null,
                Instant.parse("2026-11-30T10:00:00.123456789Z"), 4, 1200, 3,
                List.of(new IngestionStatus.PartitionStatus("tx", 0, 1200, 7)));
        JsonNode view = JSON.readTree(StreamViews.one(row, status).utf8());

        ObjectNode expected = (ObjectNode) JSON.readTree(DEFINITION);
        List<String> names = fieldNames(view);
        assertEquals(fieldNames(expected), names.subList(0, expected.size()), "definition fields first, in order");
        assertEquals(List.of("stream_id", "created_at", "created_by", "state", "ingestion_status", "backfill_status"),
                names.subList(expected.size(), names.size()));
        expected.fieldNames().forEachRemaining(f -> assertEquals(expected.get(f), view.get(f), f));
        assertEquals(row.id, view.get("stream_id").asText());
        assertEquals("2026-11-30T09:00:00.000001Z", view.get("created_at").asText());
        assertEquals("2026-11-30T10:00:00.123456Z", view.at("/ingestion_status/last_commit_at").asText());
        assertEquals(4, view.at("/ingestion_status/table_version").asLong());
        assertEquals(3, view.at("/ingestion_status/decode_failures").asLong());
        assertEquals(7, view.at("/ingestion_status/partitions/0/lag").asLong());
        assertEquals("WAITING_FOR_OVERLAP", view.at("/backfill_status/state").asText());
        assertEquals(12, view.at("/backfill_status/rows_merged").asLong());
    }

    @Test
    void freshnessAndAStallAreShownAsTheyAreKnown() throws Exception {
        Instant t0 = Instant.parse("2026-03-01T12:00:30Z");
        Instant t1 = Instant.parse("2026-03-01T12:00:20Z");
        Instant committed = Instant.parse("2026-11-30T10:00:00Z");
        IngestionStatus status = new IngestionStatus(IngestionStatus.State.STALLED, "consumer: no record received",
                committed, 4, 5, 0, List.of(
                        new IngestionStatus.PartitionStatus("tx", 0, 3, 2, committed, t0),
                        new IngestionStatus.PartitionStatus("tx", 1, 2, 0, committed.minusSeconds(5), t1),
                        new IngestionStatus.PartitionStatus("tx", 2, 0, 0, null, null)),
                List.of(), t1, List.of());
        JsonNode view = JSON.readTree(StreamViews.one(row(), status).utf8());
        assertEquals("STALLED", view.get("state").asText());
        assertEquals("consumer: no record received", view.get("state_message").asText());
        assertEquals("2026-03-01T12:00:20Z", view.at("/ingestion_status/valid_through").asText());
        assertEquals("2026-11-30T10:00:00Z", view.at("/ingestion_status/partitions/0/last_commit_at").asText());
        assertEquals("2026-03-01T12:00:30Z", view.at("/ingestion_status/partitions/0/valid_through").asText());
        assertEquals("2026-11-30T09:59:55Z", view.at("/ingestion_status/partitions/1/last_commit_at").asText());
        assertFalse(view.at("/ingestion_status/partitions/2").has("last_commit_at"), "none before its first commit");
        assertFalse(view.at("/ingestion_status/partitions/2").has("valid_through"));

        // As the log alone gives it (stream-api): a partition without a record keeps valid_through absent.
        IngestionStatus fromLog = new IngestionStatus(IngestionStatus.State.RUNNING, null, committed, 4, 5, 0,
                status.partitions(), List.of());
        assertFalse(JSON.readTree(StreamViews.one(row(), fromLog).utf8()).at("/ingestion_status").has("valid_through"));
        IngestionStatus allCommitted = new IngestionStatus(IngestionStatus.State.RUNNING, null, committed, 4, 5, 0,
                status.partitions().subList(0, 2), List.of());
        assertEquals(t1, allCommitted.validThrough());
    }

    @Test
    void aPageLeavesOutSchemaTextsUnlessAskedAndKeepsBothForms() throws Exception {
        StreamRow row = row();
        JsonNode without = JSON.readTree(StreamViews.page(List.of(row), Arrays.asList((IngestionStatus) null), false,
                "next").utf8());
        JsonNode schemas = without.at("/streams/0/schema_config/direct_schemas");
        assertFalse(schemas.get("payload_schema").has("avro_schema"));
        assertFalse(schemas.at("/key_schema/proto_schema").has("schema_text"));
        assertEquals("K", schemas.at("/key_schema/proto_schema/message_name").asText());
        assertFalse(without.at("/streams/0").has("state"), "no live status, no state");
        assertEquals("next", without.get("next_page_token").asText());

        JsonNode with = JSON.readTree(StreamViews.page(List.of(row), Arrays.asList((IngestionStatus) null), true, null)
                .utf8());
        assertEquals(JSON.readTree(DEFINITION).get("schema_config"), with.at("/streams/0/schema_config"));
        assertFalse(with.has("next_page_token"));
        assertTrue(with.get("streams").isArray());
    }

    @Test
    void theCacheHoldsAtMostItsWeightOfJsonHoweverManyLargeDefinitionsAreViewed() throws Exception {
        // 24 definitions with a schema of about 1M characters each: 48M characters cached in both forms unbounded.
        String bigSchema = "{\\\"type\\\":\\\"record\\\",\\\"name\\\":\\\"" + "x".repeat(1 << 20) + "\\\"}";
        for (int i = 0; i < 24; i++) {
            StreamRow row = row();
            row.definition = DEFINITION.replace("{\\\"type\\\":\\\"long\\\"}", bigSchema);
            JsonNode view = JSON.readTree(StreamViews.one(row, null).utf8());
            assertEquals(row.id, view.get("stream_id").asText());
            assertTrue(StreamViews.cachedChars() <= StreamViews.MAX_CACHED_CHARS,
                    "cached " + StreamViews.cachedChars() + " chars after " + (i + 1) + " views");
        }
        assertTrue(StreamViews.cachedChars() > 0, "the cache keeps what fits");
    }

    private static StreamRow row() {
        StreamRow row = new StreamRow();
        row.id = UUID.randomUUID().toString();
        row.fullName = "main.s.tx";
        row.definition = DEFINITION;
        row.createdBy = "alice";
        row.createdAt = Instant.parse("2026-11-30T09:00:00.000001Z");
        row.backfillState = "WAITING_FOR_OVERLAP";
        row.rowsMerged = 12L;
        return row;
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        for (Iterator<String> it = node.fieldNames(); it.hasNext();) {
            names.add(it.next());
        }
        return names;
    }
}
