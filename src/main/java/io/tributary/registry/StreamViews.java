package io.tributary.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tributary.ingest.IngestionStatus;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

/** The stream as the API shows it (SPEC 2.3): its definition plus identity, state and statuses. */
final class StreamViews {
    private StreamViews() {}

    static ObjectNode view(StreamRow row, IngestionStatus status, boolean includeSchemas) {
        ObjectNode node = (ObjectNode) RegistryJson.read(row.definition, JsonNode.class);
        if (!includeSchemas) {
            JsonNode direct = node.path("schema_config").path("direct_schemas");
            for (String side : new String[] {"payload_schema", "key_schema"}) {
                if (direct.get(side) instanceof ObjectNode s) {
                    s.remove("json_schema");
                    s.remove("avro_schema");
                    if (s.get("proto_schema") instanceof ObjectNode proto) {
                        proto.remove("schema_text");
                    }
                }
            }
        }
        node.put("stream_id", row.id);
        node.put("created_at", time(row.createdAt));
        node.put("created_by", row.createdBy);
        if (status != null) {
            node.put("state", status.state().name());
            if (status.stateMessage() != null) {
                node.put("state_message", status.stateMessage());
            }
            ObjectNode ingestion = node.putObject("ingestion_status");
            if (status.lastCommitAt() != null) {
                ingestion.put("last_commit_at", time(status.lastCommitAt()));
            }
            if (status.tableVersion() >= 0) {
                ingestion.put("table_version", status.tableVersion());
            }
            ingestion.put("rows_ingested", status.rowsIngested());
            ingestion.put("decode_failures", status.decodeFailures());
            ArrayNode partitions = ingestion.putArray("partitions");
            for (IngestionStatus.PartitionStatus p : status.partitions()) {
                ObjectNode pn = partitions.addObject();
                pn.put("topic", p.topic());
                pn.put("partition", p.partition());
                pn.put("committed_offset", p.committedOffset());
                if (p.lag() >= 0) {
                    pn.put("lag", p.lag());
                }
            }
        }
        ObjectNode backfill = node.putObject("backfill_status");
        backfill.put("state", row.backfillState);
        if (row.backfillMaxTimestamp != null) {
            backfill.put("backfill_max_timestamp", time(row.backfillMaxTimestamp));
        }
        if (row.ingestionMinTimestamp != null) {
            backfill.put("ingestion_min_timestamp", time(row.ingestionMinTimestamp));
        }
        backfill.put("forced", row.forced);
        if (row.rowsMerged != null) {
            backfill.put("rows_merged", row.rowsMerged);
        }
        if (row.completedAt != null) {
            backfill.put("completed_at", time(row.completedAt));
        }
        return node;
    }

    /** RFC 3339 in UTC, e.g. 2026-11-30T07:00:00.123Z. */
    static String time(Instant instant) {
        return DateTimeFormatter.ISO_INSTANT.format(instant.truncatedTo(ChronoUnit.MICROS));
    }
}
