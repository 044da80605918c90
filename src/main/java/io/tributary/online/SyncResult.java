package io.tributary.online;

/**
 * What one sync did: the versions it went from and to (equal when the source had nothing new), the source rows it
 * wrote (read with a key and stored), those it skipped for a NULL key, those it skipped for a key too long for
 * PostgreSQL's index ({@link OnlineStore#MAX_KEY_BYTES}), and those PostgreSQL could not store (a row over its 8 kB
 * page, see {@code TableSync.Upserts#write}).
 */
public record SyncResult(long fromVersion, long toVersion, long rowsRead, long nullKeysSkipped,
        long oversizedKeysSkipped, long oversizedRowsSkipped, long nanos) {
    public boolean changed() {
        return fromVersion != toVersion;
    }
}
