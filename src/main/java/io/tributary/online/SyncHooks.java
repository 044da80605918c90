package io.tributary.online;

/**
 * Points inside a sync where tests stop it (a crash between the Delta commit and the PostgreSQL transaction). The
 * production sync uses {@link #NONE}.
 */
public interface SyncHooks {
    SyncHooks NONE = new SyncHooks() {};

    /** After the rows were written, before the transaction that holds them and the new version commits. */
    default void beforeCommit(SyncSpec spec, long fromVersion, long toVersion) {}

    /** A delete of a synced table dropped its PostgreSQL table and has not yet removed its registry row. */
    default void afterDrop(String syncedTableId) {}
}
