package io.tributary.online;

import java.util.List;

/**
 * One synced table as the sync needs it: {@code id} keys its state row; {@code table} is the PostgreSQL table's name
 * (unquoted, inside the online schema); {@code primaryKey} and {@code timeseriesKey} are dotted column paths of the
 * source ({@code value.user_id}); {@code timeseriesKey} may be null (then the last synced row wins).
 */
public record SyncSpec(String id, String name, String table, String sourceLocation, List<String> primaryKey,
        String timeseriesKey, SyncPolicy policy) {
    public SyncSpec {
        primaryKey = List.copyOf(primaryKey);
    }
}
