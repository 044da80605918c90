package io.tributary.delta;

/**
 * Another writer committed to the table after the version a conditional commit was based on. Nothing was
 * committed; {@code latestVersion} is the table's version when the conflict was seen.
 */
public final class TableChangedException extends RuntimeException {
    private final long latestVersion;

    public TableChangedException(long basedOn, long latestVersion) {
        super("the table moved from version " + basedOn + " to " + latestVersion + " while the commit was prepared",
                null, false, false);
        this.latestVersion = latestVersion;
    }

    public long latestVersion() {
        return latestVersion;
    }
}
