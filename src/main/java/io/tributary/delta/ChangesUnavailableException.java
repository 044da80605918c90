package io.tributary.delta;

/**
 * The commits after a version can no longer be read as "what they added" ({@link TableChanges}), though the table's
 * snapshot still holds every row: a reader that keeps a copy in step with the table has to rebuild it from the
 * snapshot (or stop). Three causes: vacuum deleted a file those commits added (it had been compacted or merged away and
 * was older than the retention) before the reader got to it; a writer cleaned up the log files of those commits (its
 * log retention, behind a checkpoint); or the table at the location is another table than the one the reader followed
 * (deleted and written anew: a new table id, its versions counted from 0 again), whose commits after that version are
 * not the ones the reader missed.
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

    /**
     * A writer of the table cleaned up its log (Delta's log retention, {@code delta.logRetentionDuration}: commit files
     * older than a checkpoint are deleted) past the version the reader had reached.
     */
    static ChangesUnavailableException logCleanedUp(String tableRoot, long afterVersion, String earliest) {
        return new ChangesUnavailableException("the commits of the table at " + tableRoot + " after version "
                + afterVersion + " are no longer in its log (" + earliest + "; a writer cleaned up log files older "
                + "than the table's log retention) before they were read", afterVersion, false);
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
