package io.tributary.registry.online;

import io.tributary.online.SyncPolicy;
import io.tributary.online.SyncSpec;
import java.time.Instant;
import java.util.List;

/**
 * A synced table's registry row ({@code synced_tables}). {@code deletingSince}: when a delete began, null otherwise; a
 * row with it set is one whose delete has not finished (a crash between dropping the table and removing the row).
 */
public record SyncedTableRow(String fullName, String id, String sourceTableName, String sourceLocation,
        String sourceStreamId, List<String> primaryKeyColumns, String timeseriesKey, SyncPolicy policy,
        String pgTable, String owner, Instant createdAt, Instant deletingSince) {

    public SyncedTableRow {
        primaryKeyColumns = List.copyOf(primaryKeyColumns);
    }

    /** A row no delete has touched. */
    public SyncedTableRow(String fullName, String id, String sourceTableName, String sourceLocation,
            String sourceStreamId, List<String> primaryKeyColumns, String timeseriesKey, SyncPolicy policy,
            String pgTable, String owner, Instant createdAt) {
        this(fullName, id, sourceTableName, sourceLocation, sourceStreamId, primaryKeyColumns, timeseriesKey, policy,
                pgTable, owner, createdAt, null);
    }

    public boolean deleting() {
        return deletingSince != null;
    }

    public SyncSpec spec() {
        return new SyncSpec(id, fullName, pgTable, sourceLocation, primaryKeyColumns, timeseriesKey, policy);
    }
}
