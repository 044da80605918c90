package io.tributary.backfill;

import java.time.Instant;
import java.util.List;

/**
 * One stream's backfill: its ingestion table, the backfill source table (locations as {@code Tables} takes them),
 * the stream's {@code deduplication_columns} (dotted paths; empty for the default key, value and
 * stream_record_timestamp) and when the stream was created (max-wait counts from there).
 */
public record BackfillJob(String ingestionLocation, String sourceLocation, List<String> deduplicationColumns,
        Instant streamCreatedAt) {
    public BackfillJob {
        deduplicationColumns = deduplicationColumns == null ? List.of() : List.copyOf(deduplicationColumns);
    }
}
