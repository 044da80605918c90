package io.tributary.delta;

/**
 * A data file that a range of commits added is gone from storage: vacuum deleted it (it had been compacted or merged
 * away and was older than the retention) before a reader that follows the table's commits got to it. The rows are
 * still in the table, in the files that replaced it, but no longer as "what those commits added": a reader that keeps
 * a copy has to rebuild it from a snapshot.
 */
public final class ChangesVacuumedException extends RuntimeException {
    private final long afterVersion;

    ChangesVacuumedException(String tableRoot, long afterVersion, String file) {
        super("the data file " + file + ", added to the table at " + tableRoot + " after version " + afterVersion
                + ", was deleted by vacuum before it was read", null, false, false);
        this.afterVersion = afterVersion;
    }

    /** The version the reader had reached: the commits after it can no longer be read as changes. */
    public long afterVersion() {
        return afterVersion;
    }
}
