package io.tributary.delta;

/**
 * The commits after a version can no longer be read as "what they added" ({@link TableChanges}), though the table's
 * snapshot still holds every row: a reader that keeps a copy in step with the table has to rebuild it from the
 * snapshot (or stop). Two causes: vacuum deleted a file those commits added (it had been compacted or merged away and
 * was older than the retention) before the reader got to it; or the table at the location is another table than the
 * one the reader followed (deleted and written anew: a new table id, its versions counted from 0 again), whose
 * commits after that version are not the ones the reader missed.
 */
public final class ChangesUnavailableException extends RuntimeException {
    private final long afterVersion;
    private final boolean vacuumed;

    private ChangesUnavailableException(String message, long afterVersion, boolean vacuumed) {
        super(message, null, false, false);
        this.afterVersion = afterVersion;
        this.vacuumed = vacuumed;
    }

    static ChangesUnavailableException vacuumed(String tableRoot, long afterVersion, String file) {
        return new ChangesUnavailableException("the data file " + file + ", added to the table at " + tableRoot
                + " after version " + afterVersion + ", was deleted by vacuum before it was read", afterVersion, true);
    }

    /** @param how what shows it, e.g. "its table id changed from a to b" */
    public static ChangesUnavailableException replaced(String tableRoot, long afterVersion, String how) {
        return new ChangesUnavailableException("the table at " + tableRoot + " was replaced by another one since "
                + "version " + afterVersion + " was read (" + how + ")", afterVersion, false);
    }

    /** True when vacuum removed what was to be read (the reader was further behind than the retention). */
    public boolean vacuumed() {
        return vacuumed;
    }

    /** The version the reader had reached: the commits after it can no longer be read as changes. */
    public long afterVersion() {
        return afterVersion;
    }
}
