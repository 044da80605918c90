package io.tributary.online;

/** How a synced table follows its source (the names and meanings of Databricks' synced tables). */
public enum SyncPolicy {
    /** Rebuilt whole at create and at every sync call, then swapped in atomically. */
    SNAPSHOT,
    /** Brought up to date incrementally at create and at every sync call. */
    TRIGGERED,
    /** Brought up to date incrementally after every commit of the source, and by a periodic catch-up. */
    CONTINUOUS
}
