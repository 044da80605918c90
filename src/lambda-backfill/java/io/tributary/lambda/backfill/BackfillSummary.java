package io.tributary.lambda.backfill;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.List;

/**
 * What one scheduled tick did, as the function's JSON result. {@code files_vacuumed} / {@code bytes_vacuumed}: data
 * files no reader needs that table maintenance deleted; {@code maintenance_errors}: tables whose compaction or vacuum
 * failed (retried at the next tick). {@code pattern_errors} names each subscribe_pattern
 * stream whose mappings could not be refreshed, and why (retried at the next tick).
 */
@RegisterForReflection
public record BackfillSummary(
        @JsonProperty("backfills_checked") int backfillsChecked,
        @JsonProperty("backfills_completed") long backfillsCompleted,
        @JsonProperty("backfill_errors") long backfillErrors,
        @JsonProperty("tables_compacted") int tablesCompacted,
        @JsonProperty("files_vacuumed") int filesVacuumed,
        @JsonProperty("bytes_vacuumed") long bytesVacuumed,
        @JsonProperty("maintenance_errors") int maintenanceErrors,
        @JsonProperty("pattern_streams_checked") int patternStreamsChecked,
        @JsonProperty("mappings_added") int mappingsAdded,
        @JsonProperty("mappings_removed") int mappingsRemoved,
        @JsonProperty("pattern_errors") List<String> patternErrors) {}
