package io.tributary.online;

/**
 * What one sync did: the versions it went from and to (equal when the source had nothing new), the source rows it
 * read with a key, those it skipped for a NULL key, and those it skipped for a key too long for PostgreSQL's index
 * ({@link OnlineStore#MAX_KEY_BYTES}).
 */
public record SyncResult(long fromVersion, long toVersion, long rowsRead, long nullKeysSkipped,
        long oversizedKeysSkipped, long nanos) {
    public boolean changed() {
        return fromVersion != toVersion;
    }
}
