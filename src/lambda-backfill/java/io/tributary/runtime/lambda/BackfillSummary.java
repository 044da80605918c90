package io.tributary.runtime.lambda;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.quarkus.runtime.annotations.RegisterForReflection;

/** What one scheduled tick did, as the function's JSON result. */
@RegisterForReflection
public record BackfillSummary(
        @JsonProperty("backfills_checked") int backfillsChecked,
        @JsonProperty("backfills_completed") long backfillsCompleted,
        @JsonProperty("backfill_errors") long backfillErrors,
        @JsonProperty("tables_compacted") int tablesCompacted) {}
