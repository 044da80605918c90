package io.tributary.backfill;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;

/**
 * The record, in the ingestion table's own log, that the backfill merged: domain metadata committed together with
 * the merged files, so "merged" and "marked" can never disagree, and a second merger's commit conflicts on the
 * same domain. {@code merge_id} lets a merger whose commit outcome was unknown recognise its own commit.
 */
record CompletionMarker(String mergeId, Instant completedAt, long rowsMerged, Instant backfillMaxTimestamp,
        Instant ingestionMinTimestamp, boolean forced, String source, long sourceVersion) {
    static final String DOMAIN = "tributary.backfill";
    private static final ObjectMapper JSON = new ObjectMapper();

    String json() {
        ObjectNode n = JSON.createObjectNode();
        n.put("merge_id", mergeId);
        n.put("completed_at", completedAt.toString());
        n.put("rows_merged", rowsMerged);
        n.put("backfill_max_timestamp", backfillMaxTimestamp == null ? null : backfillMaxTimestamp.toString());
        n.put("ingestion_min_timestamp", ingestionMinTimestamp == null ? null : ingestionMinTimestamp.toString());
        n.put("forced", forced);
        n.put("source", source);
        n.put("source_version", sourceVersion);
        return n.toString();
    }

    static CompletionMarker parse(String json) {
        try {
            JsonNode n = JSON.readTree(json);
            return new CompletionMarker(n.path("merge_id").asText(), Instant.parse(n.path("completed_at").asText()),
                    n.path("rows_merged").asLong(), instant(n.path("backfill_max_timestamp")),
                    instant(n.path("ingestion_min_timestamp")), n.path("forced").asBoolean(), n.path("source").asText(),
                    n.path("source_version").asLong());
        } catch (IOException e) {
            throw new UncheckedIOException("unreadable backfill marker in the ingestion table's log", e);
        }
    }

    private static Instant instant(JsonNode n) {
        return n.isTextual() ? Instant.parse(n.asText()) : null;
    }

    BackfillStatus status() {
        return new BackfillStatus(BackfillState.COMPLETED, backfillMaxTimestamp, ingestionMinTimestamp, forced, rowsMerged,
                completedAt, null);
    }
}
