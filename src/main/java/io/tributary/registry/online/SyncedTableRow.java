package io.tributary.registry.online;

import io.tributary.online.SyncPolicy;
import io.tributary.online.SyncSpec;
import java.time.Instant;
import java.util.List;

/** A synced table's registry row ({@code synced_tables}). */
public record SyncedTableRow(String fullName, String id, String sourceTableName, String sourceLocation,
        String sourceStreamId, List<String> primaryKeyColumns, String timeseriesKey, SyncPolicy policy,
        String pgTable, String owner, Instant createdAt) {

    public SyncedTableRow {
        primaryKeyColumns = List.copyOf(primaryKeyColumns);
    }

    public SyncSpec spec() {
        return new SyncSpec(id, fullName, pgTable, sourceLocation, primaryKeyColumns, timeseriesKey, policy);
    }
}
