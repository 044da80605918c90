package io.tributary.features;

/** One round: the source versions it went from and to, records read and dropped late, windows made final. */
public record MaterializeResult(long fromVersion, long toVersion, long records, long lateDropped, long finalWindows,
        long watermark) {
    private static final long BUSY = Long.MIN_VALUE;

    /** A round skipped: another held the view longer than a round waits ({@link FeatureViewBusyException}). */
    static MaterializeResult busy() {
        return new MaterializeResult(BUSY, BUSY, 0, 0, 0, Long.MIN_VALUE);
    }

    public boolean skippedBusy() {
        return fromVersion == BUSY;
    }
}
