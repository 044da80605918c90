package io.tributary.online;

import java.time.Instant;
import java.util.List;

/**
 * Where a synced table stands, read from its state row (written in the same transaction as its rows):
 * {@code version} the source version it holds (-1 before the first sync), counters since it was created (or, for
 * SNAPSHOT, since its last rebuild), {@code columns} as the PostgreSQL table has them, and {@code sourceTableId} the
 * Delta table id of the source that version is of (null before the first sync, and for rows synced before it was
 * kept), because a source deleted and written anew at its location counts its versions from 0 again.
 */
public record SyncState(String id, String table, long version, long rowsSynced, long nullKeysSkipped,
        long oversizedKeysSkipped, long oversizedRowsSkipped, List<StoredColumn> columns, Instant sourceCommittedAt, Instant syncedAt,
        String state, String stateMessage, String sourceTableId) {

    public static final String PROVISIONING = "PROVISIONING";
    public static final String ONLINE = "ONLINE";
    public static final String FAILED = "FAILED";
    /** The source stream or table was deleted: the rows stay, nothing syncs any more. */
    public static final String STOPPED = "STOPPED";
    /** A delete began and has not finished (its PostgreSQL table may be gone already); nothing syncs. */
    public static final String DELETING = "DELETING";

    /** A column of the PostgreSQL table. */
    public record StoredColumn(String name, String pgType) {}

    public SyncState {
        columns = List.copyOf(columns);
    }

    /** The column named {@code name}, or null. */
    public StoredColumn column(String name) {
        for (StoredColumn c : columns) {
            if (c.name().equals(name)) {
                return c;
            }
        }
        return null;
    }
}
